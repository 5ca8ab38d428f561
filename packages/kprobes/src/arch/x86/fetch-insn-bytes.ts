import { MAX_INSN_SIZE } from './x86-constants.js';

/** Reads one byte of kernel text, or undefined when the address is not mapped. */
export type ReadByte = (address: bigint) => number | undefined;

/**
 * Returns the original byte at `address` when kprobes has changed it (the opcode under an armed
 * int3, the bytes under an optimized probe's jump), else undefined.
 * @see arch/x86/kernel/kprobes/core.c __recover_probed_insn(); opt.c __recover_optprobed_insn()
 */
export type RecoverByte = (address: bigint) => number | undefined;

/**
 * Reads up to `MAX_INSN_SIZE` bytes at `address` into a fresh buffer, substituting the original bytes
 * kprobes has overwritten, so the decoder sees the code as it was before any probe was armed. Stops
 * early at the first unmapped byte.
 * @see arch/x86/kernel/kprobes/core.c recover_probed_instruction()
 */
export function fetchInsnBytes(readByte: ReadByte, address: bigint, recover?: RecoverByte): Uint8Array {
  const buf = new Uint8Array(MAX_INSN_SIZE);
  let n = 0;
  for (; n < MAX_INSN_SIZE; n++) {
    const at = address + BigInt(n);
    const b = recover?.(at) ?? readByte(at);
    if (b === undefined) break;
    buf[n] = b;
  }
  return buf.subarray(0, n);
}
