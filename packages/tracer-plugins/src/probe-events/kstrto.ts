const U64_MAX = (1n << 64n) - 1n;

function digitValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x61 + 10;
  return 99;
}

function isXdigit(c: string | undefined): boolean {
  return c !== undefined && digitValue(c.charCodeAt(0)) < 16;
}

/** Base detection for base 0 (`0x` hex, `0` octal, else decimal) and the `0x` skip for base 16. */
function fixupRadix(s: string, at: number, base: number): { at: number; base: number } {
  if (base === 0) {
    if (s[at] === '0') base = s[at + 1]?.toLowerCase() === 'x' && isXdigit(s[at + 2]) ? 16 : 8;
    else base = 10;
  }
  if (base === 16 && s[at] === '0' && s[at + 1]?.toLowerCase() === 'x') at += 2;
  return { at, base };
}

/** Parses digits from `at`; `end` is where parsing stopped, `overflow` when past u64. */
function parseInteger(s: string, at: number, base: number): { value: bigint; end: number; overflow: boolean } {
  let value = 0n;
  let overflow = false;
  const b = BigInt(base);
  let i = at;
  for (; i < s.length; i++) {
    const d = digitValue(s.charCodeAt(i));
    if (d >= base) break;
    value = value * b + BigInt(d);
    if (value > U64_MAX) {
      overflow = true;
      value &= U64_MAX;
    }
  }
  return { value, end: i, overflow };
}

function kstrtoullNoPlus(s: string, base: number): bigint | undefined {
  const r = fixupRadix(s, 0, base);
  const p = parseInteger(s, r.at, r.base);
  if (p.overflow || p.end === r.at) return undefined;
  let end = p.end;
  if (s[end] === '\n') end++;
  return end === s.length ? p.value : undefined;
}

/**
 * Strict unsigned conversion (base 0 autodetects): optional `+`, digits, optional trailing newline,
 * nothing else; undefined on any error, including overflow.
 *
 * @see lib/kstrtox.c kstrtoull()
 */
export function kstrtoull(s: string, base: number): bigint | undefined {
  return kstrtoullNoPlus(s[0] === '+' ? s.slice(1) : s, base);
}

/** `unsigned long` on x86-64 is 64 bits. @see lib/kstrtox.c kstrtoul() */
export const kstrtoul = kstrtoull;

/** Strict unsigned 32-bit conversion. @see lib/kstrtox.c kstrtouint() */
export function kstrtouint(s: string, base: number): number | undefined {
  const v = kstrtoull(s, base);
  return v === undefined || v > 0xffffffffn ? undefined : Number(v);
}

/**
 * Strict signed 64-bit conversion (a leading `-` or `+`).
 *
 * @see lib/kstrtox.c kstrtoll()
 */
export function kstrtol(s: string, base: number): bigint | undefined {
  if (s[0] === '-') {
    const t = kstrtoullNoPlus(s.slice(1), base);
    if (t === undefined || t > 1n << 63n) return undefined;
    return -t;
  }
  const t = kstrtoull(s, base);
  return t === undefined || t >= 1n << 63n ? undefined : t;
}

/**
 * Lenient unsigned conversion from `at`: returns the value and where the digits ended (no error).
 *
 * @see lib/vsprintf.c simple_strtoull()
 */
export function simpleStrtoul(s: string, at: number, base: number): { value: bigint; end: number } {
  const r = fixupRadix(s, at, base);
  const p = parseInteger(s, r.at, r.base);
  return { value: p.value, end: p.end };
}
