import { describe, expect, it } from 'vitest';
import { decodeInsn } from './decode-insn.js';
import { h, TEXT } from './x86-test-bytes.fixture.js';

describe(decodeInsn, () => {
  const table = [
    { bytes: 'ff d0', asm: 'call *%rax', len: 2, off: 0, opcode: [0xff], modrm: 0xd0, flow: 'indirect-call' },
    { bytes: '41 ff d3', asm: 'call *%r11', len: 3, off: 1, opcode: [0xff], modrm: 0xd3, flow: 'indirect-call' },
    { bytes: '48 89 e5', asm: 'mov %rsp,%rbp', len: 3, off: 1, opcode: [0x89], modrm: 0xe5, flow: 'next' },
    { bytes: '55', asm: 'push %rbp', len: 1, off: 0, opcode: [0x55], modrm: undefined, flow: 'next' },
    { bytes: 'c3', asm: 'ret', len: 1, off: 0, opcode: [0xc3], modrm: undefined, flow: 'return' },
    { bytes: '48 cf', asm: 'iretq', len: 2, off: 1, opcode: [0xcf], modrm: undefined, flow: 'return' },
    {
      bytes: '0f 1f 44 00 00',
      asm: 'nopl 0x0(%rax,%rax,1)',
      len: 5,
      off: 0,
      opcode: [0x0f, 0x1f],
      modrm: 0x44,
      flow: 'next',
    },
    {
      bytes: '66 2e 0f 1f 84 00 00 00 00 00',
      asm: 'cs nopw 0x0(%rax,%rax,1)',
      len: 10,
      off: 2,
      opcode: [0x0f, 0x1f],
      modrm: 0x84,
      flow: 'next',
    },
    {
      bytes: '65 48 8b 04 25 28 00 00 00',
      asm: 'mov %gs:0x28,%rax',
      len: 9,
      off: 2,
      opcode: [0x8b],
      modrm: 0x04,
      flow: 'next',
    },
    {
      bytes: '66 0f 38 f6 c1',
      asm: 'adcx %ecx,%eax',
      len: 5,
      off: 1,
      opcode: [0x0f, 0x38, 0xf6],
      modrm: 0xc1,
      flow: 'next',
    },
    { bytes: '0f 01 ca', asm: 'clac', len: 3, off: 0, opcode: [0x0f, 0x01], modrm: 0xca, flow: 'next' },
    { bytes: 'c5 f8 77', asm: 'vzeroupper', len: 3, off: 2, opcode: [0x77], modrm: undefined, flow: 'next' },
    { bytes: '0f 0b', asm: 'ud2', len: 2, off: 0, opcode: [0x0f, 0x0b], modrm: undefined, flow: 'exception' },
    { bytes: 'cd 80', asm: 'int $0x80', len: 2, off: 0, opcode: [0xcd], modrm: undefined, flow: 'interrupt' },
  ] as const;

  it.each(table)('should describe $asm ($bytes)', ({ bytes, len, off, opcode, modrm, flow }) => {
    const insn = decodeInsn(h(bytes), TEXT);
    expect(insn).toMatchObject({ invalid: false, length: len, opcodeOffset: off, opcode, modrm, flow });
    expect(insn.bytes).toEqual(Array.from(h(bytes)));
  });

  it('should locate a RIP-relative disp32 and print it like objdump', () => {
    const insn = decodeInsn(h('48 8b 05 10 00 00 00 90'), TEXT);
    expect(insn).toMatchObject({ length: 7, rex: 0x48, ripRelative: true, dispOffset: 3, dispSize: 4 });
    expect(insn.text).toBe('mov 0x10(%rip),%rax');
  });

  it('should put the disp32 before the immediate of movq $imm32,disp32(%rip)', () => {
    const insn = decodeInsn(h('48 c7 05 f0 ff ff ff 01 00 00 00'), TEXT);
    expect(insn).toMatchObject({ ripRelative: true, dispOffset: 3, immOffset: 7, immSize: 4, length: 11 });
  });

  it('should not call an absolute or SIB-only memory operand RIP-relative', () => {
    expect(decodeInsn(h('8b 04 25 00 10 00 00'), TEXT).ripRelative).toBe(false);
    expect(decodeInsn(h('ff 24 c5 00 00 00 81'), TEXT).ripRelative).toBe(false);
  });

  it.each([
    { bytes: 'e8 fb ff ff ff', asm: 'call .', target: TEXT, flow: 'call' },
    { bytes: 'e9 00 01 00 00', asm: 'jmp .+0x105', target: TEXT + 0x105n, flow: 'jump' },
    { bytes: 'eb fe', asm: 'jmp .', target: TEXT, flow: 'jump' },
    { bytes: '74 02', asm: 'je .+4', target: TEXT + 4n, flow: 'conditional-jump' },
    { bytes: '0f 85 00 01 00 00', asm: 'jne .+0x106', target: TEXT + 0x106n, flow: 'conditional-jump' },
    { bytes: 'e2 fe', asm: 'loop .', target: TEXT, flow: 'conditional-jump' },
    { bytes: 'e3 10', asm: 'jrcxz .+0x12', target: TEXT + 0x12n, flow: 'conditional-jump' },
  ])('should compute the near-branch target of $asm', ({ bytes, target, flow }) => {
    expect(decodeInsn(h(bytes), TEXT)).toMatchObject({ nearBranchTarget: target, flow });
  });

  it('should give no branch target to an indirect jump', () => {
    const insn = decodeInsn(h('ff e0'), TEXT);
    expect(insn).toMatchObject({ nearBranchTarget: undefined, flow: 'indirect-jump', text: 'jmp *%rax' });
  });

  it.each([
    { bytes: '06', why: 'push %es is invalid in 64-bit mode' },
    { bytes: 'ea 00 00 00 00 10 00', why: 'jmp far absolute is invalid in 64-bit mode' },
    { bytes: '48 8b', why: 'the bytes end inside the instruction' },
    { bytes: '', why: 'there are no bytes' },
  ])('should mark undecodable bytes invalid ($why)', ({ bytes }) => {
    const insn = decodeInsn(h(bytes), TEXT);
    expect(insn.invalid).toBe(true);
    expect(insn.text).toBe('(bad)');
  });

  it('should decode only the first instruction and freeze the result', () => {
    const insn = decodeInsn(h('55 48 89 e5'), TEXT);
    expect(insn.length).toBe(1);
    expect(Object.isFrozen(insn)).toBe(true);
    expect(Object.isFrozen(insn.bytes)).toBe(true);
  });
});

describe('decodeInsn immediates', () => {
  it('should print 64-bit immediates iced-x86 alone would print as $0', () => {
    const movabs = (v: bigint) => {
      const b = new Uint8Array(10);
      b[0] = 0x48;
      b[1] = 0xb8;
      new DataView(b.buffer).setBigUint64(2, v, true);
      return decodeInsn(b, 0x1000n).text;
    };
    expect(movabs(0x8000000000000000n)).toBe('movabs $0x8000000000000000,%rax');
    expect(movabs(0x20000000000000n)).toBe('movabs $0x20000000000000,%rax');
    expect(movabs(0x9e3779b97f4a7c15n)).toBe('movabs $0x9e3779b97f4a7c15,%rax');
  });
});
