import { Decoder, DecoderOptions, Instruction } from 'iced-x86';
import { describe, expect, it } from 'vitest';
import { UNDEFINED_FLAGS } from './undefined-flags.js';

/** iced's RflagsBits (OF SF ZF AF CF PF) as RFLAGS bits. */
function icedToRflags(bits: number): number {
  return (
    (bits & 1 ? 0x800 : 0) |
    (bits & 2 ? 0x80 : 0) |
    (bits & 4 ? 0x40 : 0) |
    (bits & 8 ? 0x10 : 0) |
    (bits & 16 ? 1 : 0) |
    (bits & 32 ? 4 : 0)
  );
}

describe('UNDEFINED_FLAGS', () => {
  it.each([
    ['mul', [0x48, 0xf7, 0xe3]],
    ['imul', [0x48, 0x0f, 0xaf, 0xc3]],
    ['div', [0x48, 0xf7, 0xf3]],
    ['idiv', [0x48, 0xf7, 0xfb]],
    ['bsf', [0x48, 0x0f, 0xbc, 0xc3]],
    ['bsr', [0x48, 0x0f, 0xbd, 0xc3]],
    ['bt', [0x48, 0x0f, 0xa3, 0xd8]],
    ['and', [0x48, 0x21, 0xd8]],
    ['tzcnt', [0xf3, 0x48, 0x0f, 0xbc, 0xc3]],
    ['andn', [0xc4, 0xe2, 0xe0, 0xf2, 0xc1]],
    ['bextr', [0xc4, 0xe2, 0xf0, 0xf7, 0xc3]],
    ['blsi', [0xc4, 0xe2, 0xf8, 0xf3, 0xdb]],
    ['blsmsk', [0xc4, 0xe2, 0xf8, 0xf3, 0xd3]],
    ['blsr', [0xc4, 0xe2, 0xf8, 0xf3, 0xcb]],
    ['rol', [0x48, 0xd3, 0xc0]],
    ['shl', [0x48, 0xd3, 0xe0]],
    ['shld', [0x48, 0x0f, 0xa5, 0xd8]],
  ])('should agree with iced-x86 about %s', (mnemonic, bytes) => {
    const decoder = new Decoder(64, Uint8Array.from(bytes), DecoderOptions.None);
    const insn = new Instruction();
    decoder.decodeOut(insn);
    const iced = icedToRflags(insn.rflagsUndefined);
    insn.free();
    decoder.free();
    // iced reports the count-dependent cases as modified, so ours may only add to its set.
    expect(UNDEFINED_FLAGS[mnemonic] & iced).toBe(iced);
  });
});
