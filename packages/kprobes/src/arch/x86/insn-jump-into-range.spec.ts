import { describe, expect, it } from 'vitest';
import { decodeInsn } from './decode-insn.js';
import { insnJumpIntoRange } from './insn-jump-into-range.js';
import { h, TEXT } from './x86-test-bytes.fixture.js';

describe(insnJumpIntoRange, () => {
  // Range TEXT+0x11 .. TEXT+0x15 (a probe at TEXT+0x10: JTPR is +1..+4, and +5 is included).
  const start = TEXT + 0x11n;

  it.each([
    { bytes: 'eb 0f', asm: 'jmp .+0x11', expected: true },
    { bytes: 'eb 0e', asm: 'jmp .+0x10 (the probe address itself)', expected: false },
    { bytes: 'eb 13', asm: 'jmp .+0x15 (end included)', expected: true },
    { bytes: 'eb 14', asm: 'jmp .+0x16', expected: false },
    { bytes: 'e9 0e 00 00 00', asm: 'jmp rel32 .+0x13', expected: true },
    { bytes: '75 10', asm: 'jne .+0x12', expected: true },
    { bytes: '0f 84 0c 00 00 00', asm: 'je rel32 .+0x12', expected: true },
    { bytes: 'e2 12', asm: 'loop .+0x14', expected: true },
    { bytes: 'e3 11', asm: 'jrcxz .+0x13', expected: true },
    { bytes: 'e8 0e 00 00 00', asm: 'call .+0x13 (not in opt.c)', expected: false },
  ])('should say $expected for $asm', ({ bytes, expected }) => {
    expect(insnJumpIntoRange(decodeInsn(h(bytes), TEXT), start, 4)).toBe(expected);
  });

  it('should count a call into the range when asked to, as the documentation states', () => {
    expect(insnJumpIntoRange(decodeInsn(h('e8 0e 00 00 00'), TEXT), start, 4, true)).toBe(true);
  });

  it('should ignore instructions without a relative target', () => {
    expect(insnJumpIntoRange(decodeInsn(h('ff e0'), TEXT), start, 4)).toBe(false);
  });
});
