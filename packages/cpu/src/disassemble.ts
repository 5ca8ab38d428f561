import { Decoder, DecoderOptions, Instruction } from 'iced-x86';
import { gasFormatter } from './decode.js';

/**
 * Disassembles `bytes` at `address` in GNU/AT&T syntax like objdump (iced-x86's formatter), for
 * showing code to people.
 * @see Intel SDM Vol. 2 (instruction set reference)
 * @example
 * disassemble(Uint8Array.of(0x48, 0x89, 0xc3), 0x1000n); // [{ address: 0x1000n, length: 3, bytes: '48 89 c3', text: 'mov %rax,%rbx' }]
 */
export function disassemble(
  bytes: Uint8Array,
  address: bigint,
  count = Number.POSITIVE_INFINITY,
): { address: bigint; length: number; bytes: string; text: string }[] {
  const out: { address: bigint; length: number; bytes: string; text: string }[] = [];
  const decoder = new Decoder(64, bytes, DecoderOptions.None);
  const insn = new Instruction();
  try {
    decoder.ip = address;
    let offset = 0;
    while (decoder.canDecode && out.length < count) {
      decoder.decodeOut(insn);
      const length = insn.length;
      const raw = bytes.subarray(offset, offset + length);
      out.push({
        address: insn.ip,
        length,
        bytes: Array.from(raw, (b) => b.toString(16).padStart(2, '0')).join(' '),
        text: gasFormatter().format(insn),
      });
      offset += length;
    }
  } finally {
    insn.free();
    decoder.free();
  }
  return out;
}
