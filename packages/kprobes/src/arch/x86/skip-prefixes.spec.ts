import { describe, expect, it } from 'vitest';
import { isLegacyPrefix, isRexPrefix, skipPrefixes } from './skip-prefixes.js';
import { h } from './x86-test-bytes.fixture.js';

describe(skipPrefixes, () => {
  it.each([
    { bytes: '90', asm: 'nop', expected: 0 },
    { bytes: '48 89 e5', asm: 'mov %rsp,%rbp', expected: 1 },
    { bytes: '66 2e 0f 1f 84 00 00 00 00 00', asm: 'cs nopw', expected: 2 },
    { bytes: 'f0 48 0f b1 0a', asm: 'lock cmpxchg %rcx,(%rdx)', expected: 2 },
    { bytes: '65 48 8b 04 25 28 00 00 00', asm: 'mov %gs:0x28,%rax', expected: 2 },
    { bytes: 'f3 48 a5', asm: 'rep movsq', expected: 2 },
    { bytes: '26 36 3e 64 67 f2 c3', asm: 'prefixed ret', expected: 6 },
    { bytes: '48 41 90', asm: 'two REX bytes: only one is skipped', expected: 1 },
  ])('should find the opcode of $asm at $expected', ({ bytes, expected }) => {
    expect(skipPrefixes(h(bytes))).toBe(expected);
  });

  it('should stop at the end of a buffer of prefixes', () => {
    expect(skipPrefixes(h('66 66'))).toBe(2);
  });
});

describe(isLegacyPrefix, () => {
  it('should accept exactly the eleven legacy prefixes', () => {
    const all = Array.from({ length: 256 }, (_, b) => b).filter(isLegacyPrefix);
    expect(all).toEqual([0x26, 0x2e, 0x36, 0x3e, 0x64, 0x65, 0x66, 0x67, 0xf0, 0xf2, 0xf3]);
  });
});

describe(isRexPrefix, () => {
  it('should accept 40..4f only', () => {
    expect([0x3f, 0x40, 0x4f, 0x50].map(isRexPrefix)).toEqual([false, true, true, false]);
  });
});
