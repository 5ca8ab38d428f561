import type { ArchSite } from '../../core/arch-site.js';
import type { Boostable } from './apply-resume-fixups.js';
import type { ResumeExecutionPlan } from './resume-execution-plan.js';

/**
 * The mutable part of `struct arch_specific_insn` for boosting, one per probe site (the site's
 * {@link X86Site} itself stays frozen): `boostable` -1 (never), 0 (not yet), 1 (boosted).
 * @see arch/x86/include/asm/kprobes.h struct arch_specific_insn (4.x `boostable`)
 */
export class BoostState {
  constructor(public boostable: Boostable) {}
}

/** `struct arch_specific_insn` + `opcode` of a probe on x86-64. */
export interface X86Site extends ArchSite {
  /** The copy in the slot (RIP-relative displacement already adjusted). */
  readonly insn: Uint8Array;
  readonly length: number;
  /** `ainsn.if_modifier`: cli, sti, popf, iret — the saved IF is not forced back after them. */
  readonly ifModifier: boolean;
  /** What `resume_execution` does after this instruction. */
  readonly plan: ResumeExecutionPlan;
  /** `slot` as the CPU keeps `rip`: its int32 halves. */
  readonly slotLo: number;
  readonly slotHi: number;
  /** `orig - copy` (the probe address minus the slot), a number: generic resume adds it to `rip`. */
  readonly resumeDelta: number;
  /** `ainsn.boostable`, the one mutable part (see {@link KprobeBooster}). */
  readonly boost: BoostState;
}
