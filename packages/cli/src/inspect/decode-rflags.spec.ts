import { describe, expect, it } from 'vitest';
import { decodeRflags } from './decode-rflags.js';

describe(decodeRflags, () => {
  it('should name the set flags in order, as gdb does', () => {
    expect(decodeRflags(0x246)).toBe('0x246 [ PF ZF IF ]');
    expect(decodeRflags(0x10303)).toBe('0x10303 [ CF TF IF RF ]');
  });

  it('should show an empty set and a non-zero IOPL', () => {
    expect(decodeRflags(0x2)).toBe('0x2 [ ]');
    expect(decodeRflags(0x3202)).toBe('0x3202 [ IF IOPL=3 ]');
  });
});
