import type { ProbeSite } from './probe-site.js';

/** The architecture's part of a probe (`struct arch_specific_insn` + `opcode`), opaque to the core. */
export interface ArchSite {
  /** The instruction slot holding the copied instruction. */
  readonly slot: bigint;
  /** `p->opcode`: the original first byte, restored on disarm. */
  readonly opcode: number;
  /** The original instruction, formatted (for events and `disasm`). */
  readonly text: string;
}

/**
 * The one small interface between policy (`core/`) and mechanism (`arch/x86/`): prepare a probe's
 * instruction copy, arm and disarm it, release it.
 *
 * @see kernel/kprobes.c prepare_kprobe(), arm_kprobe(), disarm_kprobe(), arch_remove_kprobe()
 */
export interface KprobesArch {
  /** `arch_prepare_kprobe`: check the address, copy the instruction into a slot. Throws `KprobeError`. */
  prepare(addr: bigint): ArchSite;
  /** `arch_arm_kprobe`: write `int3` over the first byte. */
  arm(site: ProbeSite): void;
  /** `arch_disarm_kprobe`: put the original byte back. */
  disarm(site: ProbeSite): void;
  /** `arch_remove_kprobe`: free the slot. */
  release(site: ProbeSite): void;
}
