import { Decoder, DecoderOptions, Instruction } from 'iced-x86';
import { gasFormatter } from './decode.js';

/**
 * iced-x86's JavaScript formatter prints some 64-bit immediates as `$0` (2^63, 2^53, …) although the
 * decoded value is right: put the value from the instruction's bytes back.
 */
function fixImm64(text: string, raw: Uint8Array, immOffset: number): string {
  if (immOffset < 0) return text;
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(raw[immOffset + i]);
  return text.replace(/\$(?:-?0x[0-9a-f]+|-?\d+)/, `$0x${v.toString(16)}`);
}

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
      const constants = decoder.getConstantOffsets(insn);
      const imm64 = constants.hasImmediate && constants.immediateSize === 8 ? constants.immediateOffset : -1;
      constants.free();
      out.push({
        address: insn.ip,
        length,
        bytes: Array.from(raw, (b) => b.toString(16).padStart(2, '0')).join(' '),
        text: fixImm64(gasFormatter().format(insn), raw, imm64),
      });
      offset += length;
    }
  } finally {
    insn.free();
    decoder.free();
  }
  return out;
}
