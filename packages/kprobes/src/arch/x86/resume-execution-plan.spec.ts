import { describe, expect, it } from 'vitest';
import { group5Kind, resumeExecutionPlan } from './resume-execution-plan.js';
import { h } from './x86-test-bytes.fixture.js';

describe(resumeExecutionPlan, () => {
  it.each([
    { bytes: '9c', asm: 'pushfq', expected: 'pushf' },
    { bytes: '66 9c', asm: 'pushfw', expected: 'pushf' },
    { bytes: 'e8 00 00 00 00', asm: 'call rel32', expected: 'call-rel32' },
    { bytes: 'c3', asm: 'ret', expected: 'absolute-ip' },
    { bytes: 'c2 08 00', asm: 'ret $8', expected: 'absolute-ip' },
    { bytes: 'cb', asm: 'lret', expected: 'absolute-ip' },
    { bytes: 'ca 08 00', asm: 'lret $8', expected: 'absolute-ip' },
    { bytes: '48 cf', asm: 'iretq', expected: 'absolute-ip' },
    { bytes: 'ea', asm: 'ljmp (x86_32)', expected: 'absolute-ip' },
    { bytes: 'ff d0', asm: 'call *%rax', expected: 'call-indirect' },
    { bytes: 'ff 53 10', asm: 'call *0x10(%rbx)', expected: 'call-indirect' },
    { bytes: '41 ff d3', asm: 'call *%r11', expected: 'call-indirect' },
    { bytes: 'ff 14 c5 00 00 00 81', asm: 'call *-0x7f000000(,%rax,8)', expected: 'call-indirect' },
    { bytes: 'ff 1b', asm: 'lcall *(%rbx)', expected: 'call-indirect' },
    { bytes: 'ff e0', asm: 'jmp *%rax', expected: 'jmp-indirect' },
    { bytes: 'ff 24 c5 00 00 00 82', asm: 'jmp *-0x7e000000(,%rax,8)', expected: 'jmp-indirect' },
    { bytes: '65 ff 24 25 00 10 00 00', asm: 'jmp *%gs:0x1000', expected: 'jmp-indirect' },
    { bytes: 'ff 2b', asm: 'ljmp *(%rbx)', expected: 'jmp-indirect' },
    { bytes: 'ff c0', asm: 'inc %eax', expected: 'generic' },
    { bytes: '48 ff c8', asm: 'dec %rax', expected: 'generic' },
    { bytes: 'ff 73 08', asm: 'push 0x8(%rbx)', expected: 'generic' },
    { bytes: 'e9 00 01 00 00', asm: 'jmp rel32', expected: 'generic' },
    { bytes: '74 02', asm: 'je rel8', expected: 'generic' },
    { bytes: '48 89 e5', asm: 'mov %rsp,%rbp', expected: 'generic' },
  ])('should plan $expected for $asm', ({ bytes, expected }) => {
    expect(resumeExecutionPlan(h(bytes)).type).toBe(expected);
  });
});

describe(group5Kind, () => {
  it('should classify by the ModRM reg field', () => {
    const kinds = Array.from({ length: 8 }, (_, reg) => group5Kind(0xc0 | (reg << 3)));
    expect(kinds).toEqual([
      'other',
      'other',
      'call-indirect',
      'call-indirect',
      'jmp-indirect',
      'jmp-indirect',
      'other',
      'other',
    ]);
  });

  it('should reproduce the 2.6.16 x86_64 bug when handed the opcode byte instead of ModRM', () => {
    // call *%rax is ff d0: the old port tested 0xff (reg field 7) and matched neither case.
    expect(group5Kind(0xff)).toBe('other');
    expect(group5Kind(0xd0)).toBe('call-indirect');
  });
});
