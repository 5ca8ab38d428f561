import { describe, expect, it } from 'vitest';
import { twobyteIsBoostable } from './twobyte-is-boostable.js';

describe(twobyteIsBoostable, () => {
  const row = (r: number) => Array.from({ length: 16 }, (_, i) => (twobyteIsBoostable(r + i) ? '1' : '0')).join('');

  it.each([
    { row: 0x00, bits: '0011001011000000' },
    { row: 0x10, bits: '0000000000000000' },
    { row: 0x20, bits: '1111000000000000' },
    { row: 0x30, bits: '0100000000000000' },
    { row: 0x40, bits: '1111111111111111' },
    { row: 0x50, bits: '0000000000000000' },
    { row: 0x60, bits: '1111111111110011' },
    { row: 0x70, bits: '0000111100000011' },
    { row: 0x80, bits: '0000000000000000' },
    { row: 0x90, bits: '1111111111111111' },
    { row: 0xa0, bits: '1101110011011101' },
    { row: 0xb0, bits: '1111111100011111' },
    { row: 0xc0, bits: '1100000011111111' },
    { row: 0xd0, bits: '0111010011011101' },
    { row: 0xe0, bits: '0110010011011101' },
    { row: 0xf0, bits: '0111010011101110' },
  ])('should match the 4.x bitmap in row $row', ({ row: r, bits }) => {
    expect(row(r)).toBe(bits);
  });
});
