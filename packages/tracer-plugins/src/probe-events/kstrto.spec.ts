import { describe, expect, it } from 'vitest';
import { kstrtol, kstrtouint, kstrtoul, simpleStrtoul } from './kstrto.js';

describe(kstrtoul, () => {
  it.each([
    ['10', 10n],
    ['0x1f', 31n],
    ['010', 8n],
    ['+5', 5n],
    ['7\n', 7n],
    ['0', 0n],
    ['18446744073709551615', (1n << 64n) - 1n],
  ])('should parse %j', (s, v) => expect(kstrtoul(s, 0)).toBe(v));
  it.each(['', '0x', '08', '1a', '-1', '18446744073709551616', '1 '])('should reject %j', (s) =>
    expect(kstrtoul(s, 0)).toBeUndefined(),
  );
});

describe(kstrtol, () => {
  it('should accept signs and reject out-of-range values', () => {
    expect(kstrtol('-8', 0)).toBe(-8n);
    expect(kstrtol('+0x10', 0)).toBe(16n);
    expect(kstrtol('-9223372036854775808', 0)).toBe(-(1n << 63n));
    expect(kstrtol('9223372036854775808', 0)).toBeUndefined();
    expect(kstrtol('--1', 0)).toBeUndefined();
  });
});

describe(kstrtouint, () => {
  it('should reject values past 32 bits', () => {
    expect(kstrtouint('4294967295', 0)).toBe(4294967295);
    expect(kstrtouint('4294967296', 0)).toBeUndefined();
  });
});

describe(simpleStrtoul, () => {
  it('should stop at the first non-digit', () => {
    expect(simpleStrtoul('b10@a/16', 1, 0)).toEqual({ value: 10n, end: 3 });
    expect(simpleStrtoul('x0x1g', 1, 0)).toEqual({ value: 1n, end: 4 });
  });
});
