const U64_MAX = (1n << 64n) - 1n;
const S64_MAX = (1n << 63n) - 1n;

/**
 * Parses an integer as `kstrtoull(s, 0, …)` / `kstrtoll(s, 0, …)` do: `0x` prefix for hex, a leading
 * `0` for octal, decimal otherwise; `-` only when `signed`; the whole string must be digits and the
 * value must fit 64 bits. Returns undefined where the kernel returns -EINVAL or -ERANGE.
 *
 * @see lib/kstrtox.c kstrtoull(), kstrtoll()
 */
export function parseKernelInt(text: string, signed: boolean): bigint | undefined {
  let s = text;
  let negative = false;
  if (s.startsWith('-')) {
    if (!signed) return undefined;
    negative = true;
    s = s.slice(1);
  }
  let digits: RegExp;
  let prefix = '';
  if (/^0[xX]/.test(s)) {
    s = s.slice(2);
    digits = /^[0-9a-fA-F]+$/;
    prefix = '0x';
  } else if (s.length > 1 && s.startsWith('0')) {
    s = s.slice(1);
    digits = /^[0-7]+$/;
    prefix = '0o';
  } else {
    digits = /^[0-9]+$/;
  }
  if (!digits.test(s)) return undefined;
  const magnitude = BigInt(prefix + s);
  if (magnitude > U64_MAX) return undefined;
  if (!signed) return magnitude;
  if (negative ? magnitude > S64_MAX + 1n : magnitude > S64_MAX) return undefined;
  return negative ? -magnitude : magnitude;
}
