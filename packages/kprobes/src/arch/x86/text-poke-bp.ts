import { BREAKPOINT_INSTRUCTION, RELATIVEJUMP_OPCODE, RELATIVEJUMP_SIZE } from './x86-constants.js';

/** One write of a cross-modifying sequence; a sync (every CPU runs) must follow before the next. */
export interface PokeStep {
  /** 1: int3 on the first byte; 2: every byte but the first; 3: the new first byte. */
  readonly step: 1 | 2 | 3;
  readonly at: bigint;
  readonly bytes: Uint8Array;
}

/**
 * The three writes of `text_poke_bp` replacing the instruction at `addr` by `insn`: int3 on the first
 * byte, then the tail, then the new first byte. Between two writes every CPU must have run (the caller
 * syncs), so a CPU either sees the old instruction, the int3 (and is sent around the site), or the new
 * instruction — never a mix.
 * @see arch/x86/kernel/alternative.c text_poke_bp_batch()
 */
export function textPokeBpSteps(addr: bigint, insn: Uint8Array): readonly [PokeStep, PokeStep, PokeStep] {
  return [
    Object.freeze({ step: 1, at: addr, bytes: Uint8Array.of(BREAKPOINT_INSTRUCTION) }),
    Object.freeze({ step: 2, at: addr + 1n, bytes: insn.slice(1) }),
    Object.freeze({ step: 3, at: addr, bytes: insn.slice(0, 1) }),
  ];
}

/**
 * The two writes that take an optimized probe's jump out again: int3 over the `e9`, then the original
 * bytes the jump's displacement had replaced (`copied_insn`), each followed by a sync. The probe is left
 * as an armed int3 probe.
 * @see arch/x86/kernel/kprobes/opt.c arch_unoptimize_kprobe()
 */
export function unoptimizeSteps(addr: bigint, copiedInsn: Uint8Array): readonly [PokeStep, PokeStep] {
  return [
    Object.freeze({ step: 1, at: addr, bytes: Uint8Array.of(BREAKPOINT_INSTRUCTION) }),
    Object.freeze({ step: 2, at: addr + 1n, bytes: copiedInsn.slice() }),
  ];
}

/**
 * `e9 rel32` from `from` to `to`; undefined when out of reach.
 * @see arch/x86/kernel/kprobes/core.c __synthesize_relative_insn()
 */
export function relativeJump(from: bigint, to: bigint): Uint8Array | undefined {
  const rel = to - (from + BigInt(RELATIVEJUMP_SIZE));
  if (rel < -(1n << 31n) || rel >= 1n << 31n) return undefined;
  const bytes = new Uint8Array(RELATIVEJUMP_SIZE);
  bytes[0] = RELATIVEJUMP_OPCODE;
  new DataView(bytes.buffer).setInt32(1, Number(rel), true);
  return bytes;
}
