// One UTF-8 sequence at a time, for the decoders that treat ill-formed bytes each their own way
// (surrogate escapes for JSON, `\xNN` for a terminal).
// @see https://www.unicode.org/versions/Unicode15.0.0/ch03.pdf Table 3-7 (well-formed UTF-8 byte sequences)

/**
 * Length of the well-formed UTF-8 sequence starting at `bytes[i]` (a byte ≥ 0x80), or 0 if none:
 * no overlong forms, no surrogates, nothing past U+10FFFF.
 */
export function sequenceLength(bytes: Uint8Array, i: number, end: number): number {
  const b = bytes[i];
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < end && bytes[i + k] >= lo && bytes[i + k] <= hi;
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (b === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b >= 0xf1 && b <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** The code point of the well-formed `n`-byte sequence at `bytes[i]` (`n` from {@link sequenceLength}). */
export function utf8CodePoint(bytes: Uint8Array, i: number, n: number): number {
  let cp = bytes[i] & (n === 2 ? 0x1f : n === 3 ? 0x0f : 0x07);
  for (let k = 1; k < n; k++) cp = (cp << 6) | (bytes[i + k] & 0x3f);
  return cp;
}
