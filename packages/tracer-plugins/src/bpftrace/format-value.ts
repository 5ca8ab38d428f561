import type { Value } from './bpf-map.js';
import type { BpfType } from './bpftrace-type.js';

/**
 * A value as bpftrace's text output prints it: integers in decimal, pointers in hex, `true`/`false`,
 * strings and symbols as they are, tuples as `(1, hi)`, a kernel stack as its lines.
 *
 * @see bpftrace src/output/text.cpp TextEmitter<Primitive>
 */
export function formatValueText(v: Value, t: BpfType): string {
  if (t.k === 'ptr' && typeof v === 'bigint') return `0x${v.toString(16)}`;
  if (t.k === 'tuple' && Array.isArray(v)) {
    return `(${v.map((e, i) => formatValueText(e as Value, t.elems[i])).join(', ')})`;
  }
  return String(v);
}

/** A map key as the text output prints it between `[` and `]`: several keys (or one tuple) unparenthesized. */
export function formatKeyText(key: readonly Value[], types: readonly BpfType[]): string {
  if (key.length === 1) {
    const s = formatValueText(key[0], types[0]);
    return types[0].k === 'tuple' && s.startsWith('(') && s.endsWith(')') ? s.slice(1, -1) : s;
  }
  return key.map((k, i) => formatValueText(k, types[i])).join(', ');
}

/**
 * A JSON string as bpftrace writes it: `\"`, `\\`, `\n`, `\r`, `\t` escaped, other control characters
 * as `\u00XX`, everything else as is.
 *
 * @see bpftrace src/output/json.cpp JsonEmitter<std::string>
 */
export function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const code = s.charCodeAt(i);
    if (c === '"') out += '\\"';
    else if (c === '\\') out += '\\\\';
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (code <= 0x1f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += c;
  }
  return `${out}"`;
}

/** A value in bpftrace's JSON: integers as numbers (as strings when a double cannot hold them), tuples as arrays. */
export function formatValueJson(v: Value, t: BpfType): string {
  if (typeof v === 'bigint') return jsonInteger(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return jsonString(v);
  const elems = t.k === 'tuple' ? t.elems : [];
  return `[${v.map((e, i) => formatValueJson(e as Value, elems[i] ?? t)).join(',')}]`;
}

/** An integer in JSON: a number when a double holds it exactly, else its decimal string. */
export function jsonInteger(v: bigint): string {
  const s = v.toString();
  return BigInt(Number(v)) === v ? s : `"${s}"`;
}

/** A map key as a JSON object name: the text form, tuple parentheses and spaces removed. */
export function formatKeyJson(key: readonly Value[], types: readonly BpfType[]): string {
  return jsonString(formatKeyText(key, types).replace(/ /g, ''));
}
