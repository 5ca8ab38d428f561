import { sequenceLength, utf8CodePoint } from './utf8-sequence.js';

/** A byte that cannot start or continue a well-formed UTF-8 sequence becomes U+DC00 + byte. */
const LOW_SURROGATE_BASE = 0xdc00;

/**
 * Decodes bytes as UTF-8, losslessly: well-formed sequences become their characters; each byte of an
 * ill-formed sequence becomes the lone surrogate U+DC80..U+DCFF (U+DC00 + the byte), as Python's
 * `surrogateescape` error handler does (PEP 383). A well-formed string never holds a lone surrogate
 * (UTF-8 cannot encode one), so the bytes come back exactly: `s.encode('utf-8', 'surrogateescape')` in
 * Python, {@link surrogateEscapeEncode} here.
 *
 * @see https://peps.python.org/pep-0383/
 * @see https://www.unicode.org/versions/Unicode15.0.0/ch03.pdf Table 3-7 (well-formed UTF-8 byte sequences)
 * @example
 * surrogateEscapeDecode(new Uint8Array([0x61, 0xff]), 0, 2); // 'a\udcff'
 */
export function surrogateEscapeDecode(bytes: Uint8Array, start: number, end: number): string {
  let out = '';
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) {
      out += String.fromCharCode(b);
      i++;
      continue;
    }
    const n = sequenceLength(bytes, i, end);
    if (n === 0) {
      out += String.fromCharCode(LOW_SURROGATE_BASE + b);
      i++;
      continue;
    }
    out += String.fromCodePoint(utf8CodePoint(bytes, i, n));
    i += n;
  }
  return out;
}

/** The inverse of {@link surrogateEscapeDecode}: UTF-8, with U+DC80..U+DCFF turned back into their byte. */
export function surrogateEscapeEncode(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (cp >= 0xdc80 && cp <= 0xdcff) out.push(cp - LOW_SURROGATE_BASE);
    else out.push(...new TextEncoder().encode(ch));
  }
  return new Uint8Array(out);
}
