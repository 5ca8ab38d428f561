import type { Value } from './bpf-map.js';
import { BpftraceError } from './bpftrace-error.js';
import { type BpfType, typeName } from './bpftrace-type.js';
import type { SourceLocation } from './source-location.js';

/** One conversion of a format string: `%-08.3lx` → flags `-0`, width 8, precision 3, length l, conv x. */
interface Conversion {
  readonly flags: string;
  readonly width: number | undefined;
  readonly precision: number | undefined;
  /** Bits the length modifier truncates to (hh 8, h 16, none or l/ll/z/j 64). */
  readonly bits: number;
  readonly conv: string;
}

/** A format string split into literal text and conversions (literal first, then one per conversion). */
export interface PrintfFormat {
  readonly literals: readonly string[];
  readonly conversions: readonly Conversion[];
}

const INT_CONV = 'diuxXoc';

/**
 * Parses a printf format string and checks it against the arguments' types, with bpftrace's
 * messages: `printf: Too many arguments for format string (2 supplied, 1 expected)`, `printf: %d
 * specifier expects a value of type integer (string[3] supplied)`.
 *
 * @see bpftrace src/format_string.cpp, src/printf.cpp
 */
export function parsePrintfFormat(
  fmt: string,
  args: readonly BpfType[],
  loc: SourceLocation,
  fn = 'printf',
): PrintfFormat {
  const literals: string[] = [];
  const conversions: Conversion[] = [];
  let lit = '';
  let i = 0;
  while (i < fmt.length) {
    const c = fmt[i++];
    if (c !== '%') {
      lit += c;
      continue;
    }
    if (fmt[i] === '%') {
      lit += '%';
      i++;
      continue;
    }
    const m = /^([-+ #0]*)(\d+)?(?:\.(\d+))?(hh|h|ll|l|z|j)?([a-zA-Z])/.exec(fmt.slice(i));
    if (!m || !/[diuxXocsp]/.test(m[5])) {
      throw new BpftraceError(`${fn}: Invalid format string: unknown conversion '%${fmt.slice(i, i + 1)}'`, loc);
    }
    i += m[0].length;
    literals.push(lit);
    lit = '';
    const bits = m[4] === 'hh' ? 8 : m[4] === 'h' ? 16 : 64;
    conversions.push({
      flags: m[1],
      width: m[2] === undefined ? undefined : Number(m[2]),
      precision: m[3] === undefined ? undefined : Number(m[3]),
      bits,
      conv: m[5],
    });
  }
  literals.push(lit);
  if (args.length > conversions.length) {
    throw new BpftraceError(
      `${fn}: Too many arguments for format string (${args.length} supplied, ${conversions.length} expected)`,
      loc,
    );
  }
  if (args.length < conversions.length) {
    throw new BpftraceError(
      `${fn}: Not enough arguments for format string (${args.length} supplied, ${conversions.length} expected)`,
      loc,
    );
  }
  conversions.forEach((conv, n) => {
    const t = args[n];
    const integer = t.k === 'int' || t.k === 'bool' || t.k === 'ptr';
    if ((INT_CONV.includes(conv.conv) || conv.conv === 'p') && !integer) {
      throw new BpftraceError(
        `${fn}: %${conv.conv} specifier expects a value of type integer (${typeName(t)} supplied)`,
        loc,
      );
    }
  });
  return { literals, conversions };
}

/** Renders a parsed format with the arguments' values, as C's printf would with 64-bit arguments. */
export function formatPrintf(f: PrintfFormat, values: readonly Value[]): string {
  let out = f.literals[0];
  for (let i = 0; i < f.conversions.length; i++) out += convert(f.conversions[i], values[i]) + f.literals[i + 1];
  return out;
}

function convert(c: Conversion, v: Value): string {
  let body: string;
  let sign = '';
  const n = typeof v === 'bigint' ? v : typeof v === 'boolean' ? (v ? 1n : 0n) : 0n;
  switch (c.conv) {
    case 'd':
    case 'i': {
      const s = BigInt.asIntN(c.bits, n);
      sign = s < 0n ? '-' : c.flags.includes('+') ? '+' : c.flags.includes(' ') ? ' ' : '';
      body = (s < 0n ? -s : s).toString();
      break;
    }
    case 'u':
      body = BigInt.asUintN(c.bits, n).toString();
      break;
    case 'x':
    case 'X':
    case 'o': {
      const u = BigInt.asUintN(c.bits, n);
      body = u.toString(c.conv === 'o' ? 8 : 16);
      if (c.conv === 'X') body = body.toUpperCase();
      if (c.flags.includes('#') && u !== 0n) sign = c.conv === 'o' ? '0' : c.conv === 'x' ? '0x' : '0X';
      break;
    }
    case 'p':
      body = BigInt.asUintN(64, n).toString(16);
      sign = '0x';
      break;
    case 'c':
      return pad(c, String.fromCharCode(Number(BigInt.asUintN(8, n))), '');
    default: {
      let s = Array.isArray(v) ? String(v) : String(v);
      if (c.precision !== undefined) s = s.slice(0, c.precision);
      return pad(c, s, '');
    }
  }
  if (c.precision !== undefined && c.conv !== 'p') body = body.padStart(c.precision, '0');
  return pad(c, body, sign);
}

function pad(c: Conversion, body: string, sign: string): string {
  const width = c.width ?? 0;
  const len = sign.length + body.length;
  if (len >= width) return sign + body;
  if (c.flags.includes('-')) return (sign + body).padEnd(width);
  if (c.flags.includes('0') && c.precision === undefined && c.conv !== 's' && c.conv !== 'c') {
    return sign + body.padStart(width - sign.length, '0');
  }
  return (sign + body).padStart(width);
}
