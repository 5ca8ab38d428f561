import { describe, expect, it } from 'vitest';
import { decodeInsn } from './decode-insn.js';
import { insnIsIndirectJump } from './insn-is-indirect-jump.js';
import { h, TEXT } from './x86-test-bytes.fixture.js';

describe(insnIsIndirectJump, () => {
  it.each([
    { bytes: 'ff e0', asm: 'jmp *%rax', expected: true },
    { bytes: 'ff 24 c5 00 00 00 82', asm: 'jmp *-0x7e000000(,%rax,8)', expected: true },
    { bytes: '41 ff e3', asm: 'jmp *%r11', expected: true },
    { bytes: 'ff 2b', asm: 'ljmp *(%rbx)', expected: true },
    { bytes: 'ff d0', asm: 'call *%rax', expected: false },
    { bytes: 'ff c0', asm: 'inc %eax', expected: false },
    { bytes: 'e9 00 00 00 00', asm: 'jmp rel32', expected: false },
  ])('should say $expected for $asm', ({ bytes, expected }) => {
    expect(insnIsIndirectJump(decodeInsn(h(bytes), TEXT))).toBe(expected);
  });

  it('should count ea (jmp far absolute) by its opcode byte', () => {
    // ea is invalid in 64-bit mode, so only the opcode byte is known: the test is on that byte.
    expect(insnIsIndirectJump(decodeInsn(h('ea 00 00 00 00 10 00'), TEXT))).toBe(true);
  });
});
