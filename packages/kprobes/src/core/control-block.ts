import type { ProbeSite, ProbeState } from './probe-site.js';

interface Previous {
  readonly current: ProbeSite | undefined;
  readonly status: number;
  readonly oldFlags: number;
  readonly savedFlags: number;
}

/**
 * Per-CPU kprobes state: the probe being handled, its status, the flags to restore after the
 * single-step, the previous probe while a re-entered one is stepped, and a jprobe's saved registers.
 *
 * @see include/linux/kprobes.h struct kprobe_ctlblk (x86: arch/x86/include/asm/kprobes.h)
 */
export class ControlBlock {
  /** `current_kprobe`. */
  current: ProbeSite | undefined;
  /** `kprobe_status` (KprobeStatus). */
  status = 0;
  /** `kprobe_old_flags`: TF|IF of the flags at the hit. */
  oldFlags = 0;
  /** `kprobe_saved_flags`: what is OR-ed back after the step (IF dropped for IF modifiers). */
  savedFlags = 0;
  private prev: Previous | undefined;
  /** The jprobe whose entry is running (`setjmp_pre_handler` returned 1). */
  jprobe: ProbeState | undefined;
  /** `jprobe_saved_regs`: the probed function's registers at entry. */
  jprobeRegs: { readonly gpr: readonly bigint[]; readonly ip: bigint; readonly flags: number } | undefined;
  /** `jprobe_saved_sp` and the copy of the stack above it (`MIN_STACK_SIZE`). */
  jprobeSp = 0n;
  jprobeStack: Uint8Array | undefined;
  /** Virtual time at the hit (events of one hit share it). */
  at = 0;

  /** A copy, for snapshots. */
  copy(): ControlBlock {
    const c = new ControlBlock();
    c.assign(this);
    return c;
  }

  /** Takes every field of `other` (snapshot restore). */
  assign(other: ControlBlock): void {
    this.current = other.current;
    this.status = other.status;
    this.oldFlags = other.oldFlags;
    this.savedFlags = other.savedFlags;
    this.prev = other.prev;
    this.jprobe = other.jprobe;
    this.jprobeRegs = other.jprobeRegs;
    this.jprobeSp = other.jprobeSp;
    this.jprobeStack = other.jprobeStack?.slice();
    this.at = other.at;
  }

  /** `save_previous_kprobe`. */
  savePrevious(): void {
    this.prev = { current: this.current, status: this.status, oldFlags: this.oldFlags, savedFlags: this.savedFlags };
  }

  /** `restore_previous_kprobe`. */
  restorePrevious(): void {
    const p = this.prev!;
    this.current = p.current;
    this.status = p.status;
    this.oldFlags = p.oldFlags;
    this.savedFlags = p.savedFlags;
    this.prev = undefined;
  }

  /** `reset_current_kprobe`. */
  reset(): void {
    this.current = undefined;
    this.status = 0;
  }
}
