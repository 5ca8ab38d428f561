import { MAX_INSN_SIZE, RELATIVEJUMP_OPCODE, RELATIVEJUMP_SIZE } from './x86-constants.js';

/** A `jmp rel32` to write into a slot right after the copied instruction. */
export interface BoostJump {
  /** Where the jump goes: `slot + insnLen`. */
  readonly at: bigint;
  /** `e9 rel32`. */
  readonly bytes: Uint8Array;
}

/**
 * Whether an instruction of `insnLen` bytes leaves room for the 5-byte jump back in its slot, by the
 * 4.x rule applied lazily in `resume_execution()`: `insnLen + 5 < MAX_INSN_SIZE` (so at most 10
 * bytes; modern `prepare_singlestep()` allows `MAX_INSN_SIZE - insnLen >= 5`, 11 bytes).
 * @see arch/x86/kernel/kprobes/core.c resume_execution() (4.x)
 */
export function boostFits(insnLen: number): boolean {
  return insnLen > 0 && insnLen + RELATIVEJUMP_SIZE < MAX_INSN_SIZE;
}

/**
 * Builds the `e9 rel32` that follows a boosted copy: placed at `slotAddr + insnLen`, jumping to
 * `origNext` (the instruction after the probed one). Undefined when the distance does not fit in
 * s32 (slots are allocated within ±2 GiB of the kernel, so this means a caller bug).
 * @see arch/x86/kernel/kprobes/core.c synthesize_reljump(), __synthesize_relative_insn()
 */
export function boostJump(slotAddr: bigint, insnLen: number, origNext: bigint): BoostJump | undefined {
  const at = slotAddr + BigInt(insnLen);
  const rel = origNext - (at + BigInt(RELATIVEJUMP_SIZE));
  if (rel < -(1n << 31n) || rel >= 1n << 31n) return undefined;
  const bytes = new Uint8Array(RELATIVEJUMP_SIZE);
  bytes[0] = RELATIVEJUMP_OPCODE;
  new DataView(bytes.buffer).setInt32(1, Number(rel), true);
  return Object.freeze({ at, bytes });
}
