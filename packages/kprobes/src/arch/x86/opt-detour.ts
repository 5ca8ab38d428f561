import { relativeJump } from './text-poke-bp.js';
import { MAX_OPTIMIZED_LENGTH, RELATIVEJUMP_SIZE } from './x86-constants.js';

/**
 * `TMPL_END_IDX`: where the copied region starts in a detour buffer, after the template. Linux's
 * template (`optprobe_template_func`) saves a `pt_regs` frame, calls `optimized_callback` and restores
 * the frame; here it is one byte, the host gate of the optimized callback: the CPU's registers are the
 * probed context itself there, so there is nothing to save.
 */
export const TMPL_END_IDX = 1;

/** The byte under the gate (never executed as code: an int3 if it ever were). */
const GATE_FILLER = 0xcc;

/** Bytes of one detour buffer (an `optinsn` slot): the gate, the longest region and the jump back, rounded up. */
export const OPTINSN_SLOT_SIZE = 32;

/** A detour buffer's code and the parts of it that are instrumentation. */
export interface OptDetour {
  /** The whole buffer's code: the gate, the copied DCR, the jump back. */
  readonly bytes: Uint8Array;
  /** Offset of the `jmp rel32` back to `addr + regionLength` (the copied DCR is from TMPL_END_IDX to here). */
  readonly jmpBack: number;
}

/**
 * Builds an optimized probe's detour buffer at `buf`: the gate of the optimized callback, the
 * relocated DCR instructions (`relocated`, already re-encoded for `buf + TMPL_END_IDX`), then
 * `jmp rel32` back to `addr + relocated.length`. The probe's jump goes to `buf`; the callback goes
 * on at `buf + TMPL_END_IDX`, as does an int3 hit of a probe being (un)optimized.
 *
 * Undefined when the region is too long or the way back is out of rel32 reach (`-ERANGE`).
 * @see arch/x86/kernel/kprobes/opt.c arch_prepare_optimized_kprobe(), setup_detour_execution()
 */
export function buildOptDetour(buf: bigint, addr: bigint, relocated: Uint8Array): OptDetour | undefined {
  if (relocated.length > MAX_OPTIMIZED_LENGTH) return undefined;
  const jmpBack = TMPL_END_IDX + relocated.length;
  const jmp = relativeJump(buf + BigInt(jmpBack), addr + BigInt(relocated.length));
  if (!jmp) return undefined;
  const bytes = new Uint8Array(jmpBack + RELATIVEJUMP_SIZE);
  bytes.fill(GATE_FILLER, 0, TMPL_END_IDX);
  bytes.set(relocated, TMPL_END_IDX);
  bytes.set(jmp, jmpBack);
  return Object.freeze({ bytes, jmpBack });
}
