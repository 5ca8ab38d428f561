import { describe, expect, it } from 'vitest';
import { sequenceLength, utf8CodePoint } from './utf8-sequence.js';

describe(sequenceLength, () => {
  it.each([
    [[0xc3, 0xa9], 2],
    [[0xe2, 0x82, 0xac], 3],
    [[0xf0, 0x9f, 0x98, 0x80], 4],
    [[0xc0, 0x80], 0], // overlong NUL
    [[0xe0, 0x80, 0x80], 0], // overlong
    [[0xed, 0xa0, 0x80], 0], // a surrogate, U+D800
    [[0xf4, 0x90, 0x80, 0x80], 0], // past U+10FFFF
    [[0xe2, 0x82], 0], // cut short by the end
    [[0x80], 0], // a lone continuation byte
  ])('should measure %j as %i', (bytes, n) => {
    const b = Uint8Array.from(bytes);
    expect(sequenceLength(b, 0, b.length)).toBe(n);
  });
});

describe(utf8CodePoint, () => {
  it.each([
    [[0xc3, 0xa9], 0xe9],
    [[0xe2, 0x82, 0xac], 0x20ac],
    [[0xf0, 0x9f, 0x98, 0x80], 0x1f600],
    [[0xf4, 0x8f, 0xbf, 0xbf], 0x10ffff],
  ])('should decode %j as U+%s', (bytes, cp) => {
    const b = Uint8Array.from([0x41, ...bytes]);
    expect(utf8CodePoint(b, 1, bytes.length)).toBe(cp);
  });
});
