import { relativeJump } from './text-poke-bp.js';
import { MAX_OPTIMIZED_LENGTH, RELATIVEJUMP_SIZE } from './x86-constants.js';

/** Bytes of one detour buffer (an `optinsn` slot): the longest region and the jump back, rounded up. */
export const OPTINSN_SLOT_SIZE = 32;

/** A detour buffer's code and the parts of it that are instrumentation. */
export interface OptDetour {
  /** The whole buffer's code. */
  readonly bytes: Uint8Array;
  /** Offset of the `jmp rel32` back to `addr + regionLength` (the copied DCR is everything before). */
  readonly jmpBack: number;
}

/**
 * Builds an optimized probe's detour buffer at `buf`: the relocated DCR instructions (`relocated`,
 * already re-encoded for `buf`), then `jmp rel32` back to `addr + relocated.length`.
 *
 * Linux's buffer starts with `optprobe_template_func` (save a `pt_regs` frame, call
 * `optimized_callback`, restore); here the probe's jump goes to a host gate instead, where the CPU's
 * registers are the probed context itself, and the gate continues at this buffer (see
 * {@link OptimizedCallback}): what is left of the template is the part after `TMPL_END_IDX`.
 *
 * Undefined when the region is too long or the way back is out of rel32 reach (`-ERANGE`).
 * @see arch/x86/kernel/kprobes/opt.c arch_prepare_optimized_kprobe(), setup_detour_execution()
 */
export function buildOptDetour(buf: bigint, addr: bigint, relocated: Uint8Array): OptDetour | undefined {
  if (relocated.length > MAX_OPTIMIZED_LENGTH) return undefined;
  const jmpBack = relocated.length;
  const jmp = relativeJump(buf + BigInt(jmpBack), addr + BigInt(relocated.length));
  if (!jmp) return undefined;
  const bytes = new Uint8Array(jmpBack + RELATIVEJUMP_SIZE);
  bytes.set(relocated);
  bytes.set(jmp, jmpBack);
  return Object.freeze({ bytes, jmpBack });
}
