import type { PtRegs } from '@int3/kernel';
import type { KprobesArchHost } from '../../core/arch.js';
import type { ProbeSite } from '../../core/probe-site.js';

/**
 * What the x86 kprobes core (`core.ts`) and optprobes (`opt.ts`) share, as Linux shares it through
 * `arch/x86/kernel/kprobes/common.h`: the core's int3 handler sends a hit of an optimized probe
 * through its detour, and decoders see the original bytes under a jump. The call stays inside the
 * arch; the generic core is not asked.
 * @see arch/x86/kernel/kprobes/common.h
 */
export interface OptprobesCommon {
  /**
   * An int3 hit of a site flagged optimized (queued, being patched or being unoptimized) continues in
   * the detour's copy of the region (true), never single-stepping into a region whose bytes may be
   * half-written.
   * @see arch/x86/kernel/kprobes/opt.c setup_detour_execution()
   */
  setupDetourExecution(site: ProbeSite, regs: PtRegs): boolean;
  /**
   * The original byte under an optimized probe's jump displacement, else undefined.
   * @see arch/x86/kernel/kprobes/opt.c __recover_optprobed_insn()
   */
  recoverOptprobedByte(a: bigint): number | undefined;
}

/**
 * The original byte at `a`: an armed probe's saved opcode under its int3, else the byte under an
 * optimized probe's jump; undefined when neither covers `a`.
 * @see arch/x86/kernel/kprobes/core.c recover_probed_instruction(), __recover_probed_insn()
 */
export function recoverProbedByte(
  core: Pick<KprobesArchHost, 'get'>,
  opt: Pick<OptprobesCommon, 'recoverOptprobedByte'>,
  a: bigint,
): number | undefined {
  const site = core.get(a);
  return site?.armed ? site.arch.opcode : opt.recoverOptprobedByte(a);
}
