import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { surrogateEscapeDecode, surrogateEscapeEncode } from './surrogate-escape.js';

const decode = (bytes: number[]) => surrogateEscapeDecode(new Uint8Array(bytes), 0, bytes.length);

describe(surrogateEscapeDecode, () => {
  it.each<[string, number[], string]>([
    ['ASCII', [0x61, 0x22, 0x5c, 0x0a], 'a"\\\n'],
    ['two-, three- and four-byte sequences', [0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80], 'é€😀'],
    ['a lone continuation byte', [0xa9], '\udca9'],
    ['a truncated sequence', [0xe2, 0x82, 0x61], '\udce2\udc82a'],
    ['an overlong NUL', [0xc0, 0x80], '\udcc0\udc80'],
    ['an encoded surrogate', [0xed, 0xa0, 0x80], '\udced\udca0\udc80'],
    ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80], '\udcf4\udc90\udc80\udc80'],
    ['0xff', [0xff], '\udcff'],
  ])('should decode %s', (_what, bytes, expected) => {
    expect(decode(bytes)).toBe(expected);
  });

  it('should agree with TextDecoder on well-formed UTF-8', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const bytes = new TextEncoder().encode(s);
        expect(surrogateEscapeDecode(bytes, 0, bytes.length)).toBe(new TextDecoder().decode(bytes));
      }),
    );
  });

  it('should give back exactly the bytes of any byte string through surrogateEscapeEncode', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(surrogateEscapeEncode(surrogateEscapeDecode(bytes, 0, bytes.length))).toEqual(bytes);
      }),
    );
  });
});
