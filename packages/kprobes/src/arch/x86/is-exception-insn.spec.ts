import { describe, expect, it } from 'vitest';
import { isExceptionInsn } from './is-exception-insn.js';
import { h } from './x86-test-bytes.fixture.js';

describe(isExceptionInsn, () => {
  it.each([
    { bytes: '0f ff c0', asm: 'ud0 %eax,%eax', expected: 'ud0' },
    { bytes: '0f b9 c0', asm: 'ud1 %eax,%eax', expected: 'ud1' },
    { bytes: '0f 0b', asm: 'ud2', expected: 'ud2' },
    { bytes: 'cc', asm: 'int3', expected: 'int3' },
    { bytes: 'cd 80', asm: 'int $0x80', expected: 'int' },
    { bytes: 'ce', asm: 'into', expected: 'into' },
    { bytes: 'f1', asm: 'int1', expected: 'int1' },
    { bytes: '67 0f 0b', asm: 'addr32 ud2', expected: 'ud2' },
  ])('should refuse $asm', ({ bytes, expected }) => {
    const found = isExceptionInsn(h(bytes));
    expect(found?.mnemonic).toBe(expected);
    expect(found?.reason).toContain('cannot probe an exception instruction');
  });

  it.each([
    { bytes: '90', asm: 'nop' },
    { bytes: '0f 1f 00', asm: 'nopl (%rax)' },
    { bytes: 'ff d0', asm: 'call *%rax' },
    { bytes: 'c3', asm: 'ret' },
    { bytes: '0f 05', asm: 'syscall' },
  ])('should accept $asm', ({ bytes }) => {
    expect(isExceptionInsn(h(bytes))).toBeUndefined();
  });
});
