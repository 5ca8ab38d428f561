import { PT_REGS_OFFSET } from '@int3/kernel';
import { Decoder, DecoderOptions, Formatter, FormatterSyntax, Instruction } from 'iced-x86';
import { describe, expect, it } from 'vitest';
import { buildOptDetour, OPTINSN_SLOT_SIZE } from './opt-detour.js';

function disassemble(bytes: Uint8Array, ip: bigint): string[] {
  const decoder = new Decoder(64, bytes, DecoderOptions.None);
  const formatter = new Formatter(FormatterSyntax.Gas);
  const insn = new Instruction();
  decoder.ip = ip;
  const lines: string[] = [];
  try {
    while (decoder.canDecode) {
      decoder.decodeOut(insn);
      lines.push(formatter.format(insn).toLowerCase());
    }
  } finally {
    insn.free();
    formatter.free();
    decoder.free();
  }
  return lines;
}

const BUF = 0xffffffffa0001000n;
const ADDR = 0xffffffff81001234n;
const GATE = 0xffffffffa0000040n;

describe(buildOptDetour, () => {
  // mov $1,%eax; push %rbx (6 bytes of DCR)
  const dcr = Uint8Array.from([0xb8, 0x01, 0x00, 0x00, 0x00, 0x53]);
  const d = buildOptDetour(BUF, ADDR, GATE, dcr)!;

  it('should save a pt_regs frame, call the gate, restore, run the DCR copy and jump back', () => {
    expect(disassemble(d.bytes, BUF)).toEqual([
      'push %rsp',
      'pushf',
      'lea -0x18(%rsp),%rsp',
      'push %rdi',
      'push %rsi',
      'push %rdx',
      'push %rcx',
      'push %rax',
      'push %r8',
      'push %r9',
      'push %r10',
      'push %r11',
      'push %rbx',
      'push %rbp',
      'push %r12',
      'push %r13',
      'push %r14',
      'push %r15',
      'mov %rsp,%rsi',
      'movabs $0xffffffff81001234,%rdi',
      'call 0xffffffffa0000040',
      'mov 0x90(%rsp),%rdx',
      'mov %rdx,0x98(%rsp)',
      'pop %r15',
      'pop %r14',
      'pop %r13',
      'pop %r12',
      'pop %rbp',
      'pop %rbx',
      'pop %r11',
      'pop %r10',
      'pop %r9',
      'pop %r8',
      'pop %rax',
      'pop %rcx',
      'pop %rdx',
      'pop %rsi',
      'pop %rdi',
      'add $0x20,%rsp',
      'popf',
      'mov $1,%eax',
      'push %rbx',
      'jmp 0xffffffff8100123a',
    ]);
  });

  it('should lay the frame out as struct pt_regs: 20 words pushed, flags and sp where pt_regs has them', () => {
    // 1 (rsp) + 1 (flags) + 3 (cs, ip, orig_ax) + 15 registers = the frame up to `sp`, `ss` above it.
    expect(PT_REGS_OFFSET.sp).toBe(19 * 8);
    expect(PT_REGS_OFFSET.flags).toBe(0x90);
    expect(d.bytes.length).toBeLessThanOrEqual(OPTINSN_SLOT_SIZE);
    expect(d.bytes.subarray(d.tmplEnd, d.jmpBack)).toEqual(dcr);
    expect(d.bytes[d.callAt]).toBe(0xe8);
  });

  it('should refuse a gate or a way back out of rel32 reach', () => {
    expect(buildOptDetour(BUF, 0x1000n, GATE, dcr)).toBeUndefined();
    expect(buildOptDetour(BUF, ADDR, 0x1000n, dcr)).toBeUndefined();
  });
});
