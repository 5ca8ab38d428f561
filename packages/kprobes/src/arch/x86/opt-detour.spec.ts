import { Decoder, DecoderOptions, Formatter, FormatterSyntax, Instruction } from 'iced-x86';
import { describe, expect, it } from 'vitest';
import { buildOptDetour, OPTINSN_SLOT_SIZE, TMPL_END_IDX } from './opt-detour.js';
import { MAX_OPTIMIZED_LENGTH } from './x86-constants.js';

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

describe(buildOptDetour, () => {
  // mov $1,%eax; push %rbx (6 bytes of DCR)
  const dcr = Uint8Array.from([0xb8, 0x01, 0x00, 0x00, 0x00, 0x53]);
  const d = buildOptDetour(BUF, ADDR, dcr)!;

  it('should hold the gate byte, exactly the DCR copy, and the jump back after the region', () => {
    expect(TMPL_END_IDX).toBe(1);
    expect(disassemble(d.bytes, BUF)).toEqual(['int3', 'mov $1,%eax', 'push %rbx', 'jmp 0xffffffff8100123a']);
    expect(d.jmpBack).toBe(TMPL_END_IDX + dcr.length);
    expect(d.bytes.subarray(TMPL_END_IDX, d.jmpBack)).toEqual(dcr);
  });

  it('should fit the gate, the longest region and its jump back in one slot', () => {
    const longest = buildOptDetour(BUF, ADDR, new Uint8Array(MAX_OPTIMIZED_LENGTH).fill(0x90))!;
    expect(longest.bytes.length).toBe(TMPL_END_IDX + MAX_OPTIMIZED_LENGTH + 5);
    expect(longest.bytes.length).toBeLessThanOrEqual(OPTINSN_SLOT_SIZE);
  });

  it('should refuse a region longer than MAX_OPTIMIZED_LENGTH or a way back out of rel32 reach', () => {
    expect(buildOptDetour(BUF, ADDR, new Uint8Array(MAX_OPTIMIZED_LENGTH + 1))).toBeUndefined();
    expect(buildOptDetour(BUF, 0x1000n, dcr)).toBeUndefined();
  });
});
