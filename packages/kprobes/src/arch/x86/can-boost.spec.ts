import { describe, expect, it } from 'vitest';
import { canBoost } from './can-boost.js';
import { h } from './x86-test-bytes.fixture.js';

describe(canBoost, () => {
  it.each([
    { bytes: '48 89 e5', asm: 'mov %rsp,%rbp', expected: true },
    { bytes: '55', asm: 'push %rbp', expected: true },
    { bytes: '48 8b 05 10 00 00 00', asm: 'mov 0x10(%rip),%rax', expected: true },
    { bytes: '48 63 c7', asm: 'movslq %edi,%rax', expected: true },
    { bytes: '65 48 8b 04 25 28 00 00 00', asm: 'mov %gs:0x28,%rax', expected: true },
    { bytes: '66 90', asm: 'xchg %ax,%ax', expected: true },
    { bytes: 'f0 48 0f b1 0a', asm: 'lock cmpxchg %rcx,(%rdx)', expected: true },
    { bytes: 'f3 48 a5', asm: 'rep movsq', expected: true },
    { bytes: '0f 44 c1', asm: 'cmove %ecx,%eax', expected: true },
    { bytes: '0f b6 c0', asm: 'movzbl %al,%eax', expected: true },
    { bytes: '0f 31', asm: 'rdtsc', expected: true },
    { bytes: 'c3', asm: 'ret', expected: true },
    { bytes: 'c9', asm: 'leave', expected: true },
    { bytes: 'cf', asm: 'iret', expected: true },
    { bytes: 'ff d0', asm: 'call *%rax (the f0 row refuses ff)', expected: false },
    { bytes: 'fa', asm: 'cli', expected: true },
    { bytes: 'f5', asm: 'cmc', expected: true },
    { bytes: 'ec', asm: 'in (%dx),%al', expected: true },
    { bytes: 'd7', asm: 'xlat', expected: true },
    { bytes: '0f 1f 44 00 00', asm: 'nopl 0x0(%rax,%rax,1) (0f 1f is a group in 4.x)', expected: false },
    { bytes: '74 02', asm: 'je rel8', expected: false },
    { bytes: '0f 84 00 01 00 00', asm: 'je rel32', expected: false },
    { bytes: 'e8 00 00 00 00', asm: 'call rel32', expected: false },
    { bytes: 'e9 00 00 00 00', asm: 'jmp rel32', expected: false },
    { bytes: 'eb fe', asm: 'jmp rel8', expected: false },
    { bytes: 'e2 fe', asm: 'loop', expected: false },
    { bytes: 'e3 02', asm: 'jrcxz', expected: false },
    { bytes: 'cc', asm: 'int3', expected: false },
    { bytes: 'cd 80', asm: 'int $0x80', expected: false },
    { bytes: '0f 0b', asm: 'ud2', expected: false },
    { bytes: '0f a2', asm: 'cpuid', expected: false },
    { bytes: 'c1 e0 04', asm: 'shl $4,%eax', expected: false },
    { bytes: 'd1 e0', asm: 'shl %eax', expected: false },
    { bytes: 'f7 d8', asm: 'neg %eax', expected: false },
    { bytes: 'f4', asm: 'hlt', expected: false },
    { bytes: '2e 74 02', asm: 'cs je (branch hint)', expected: false },
    { bytes: '2e 90', asm: 'cs nop', expected: false },
    { bytes: '67 8b 00', asm: 'addr32 mov (%eax),%eax', expected: false },
    { bytes: '66 0f 1f 44 00 00', asm: 'nopw 0x0(%rax,%rax,1)', expected: false },
    { bytes: '48 0f 05', asm: 'rex.W syscall', expected: false },
  ])('should say $expected for $asm', ({ bytes, expected }) => {
    expect(canBoost(h(bytes))).toBe(expected);
  });

  it('should never boost an instruction listed in the exception tables', () => {
    expect(canBoost(h('48 8b 07'), true)).toBe(false);
    expect(canBoost(h('48 8b 07'), false)).toBe(true);
  });

  it('should give up on a run of prefixes longer than an instruction', () => {
    expect(canBoost(new Uint8Array(16).fill(0x66))).toBe(false);
    expect(canBoost(h('66'))).toBe(false);
  });
});
