import type { PtRegs } from '@int3/kernel';

/** `p->flags` bits. @see include/linux/kprobes.h */
export const KprobeFlag = {
  /** The probe's code has gone (module unloaded). */
  GONE: 1,
  /** Temporarily disabled (`disable_kprobe`, or registered disabled). */
  DISABLED: 2,
  /** Jump-optimized. */
  OPTIMIZED: 4,
  /** On an ftrace site (never set here: no ftrace). */
  FTRACE: 8,
} as const;

/** `kprobe_pre_handler_t`: non-zero means "I changed the ip: do not single-step". */
export type PreHandler = (p: Kprobe, regs: PtRegs) => number | boolean | undefined;
/** `kprobe_post_handler_t`: runs after the single-step. `flags` is always 0, as on x86. */
export type PostHandler = (p: Kprobe, regs: PtRegs, flags: number) => void;
/** `kprobe_fault_handler_t`: non-zero means the handler dealt with the fault. */
export type FaultHandler = (p: Kprobe, regs: PtRegs, trapnr: number) => number | boolean | undefined;
/** `kprobe_break_handler_t` (jprobes only): non-zero means this int3 was ours. */
export type BreakHandler = (p: Kprobe, regs: PtRegs) => number | boolean | undefined;

/**
 * `struct kprobe`: what a caller fills in and registers. Either `symbolName` (+ `offset`) or `addr`.
 * kprobes writes `addr` (resolved), `nmissed` and `flags` back into the object, as the kernel writes
 * them into the struct; it clears `addr` (undefined) on unregistration, and a snapshot's restore
 * writes the counters back as they were, unset included. A kretprobe's entry probe has its
 * `postHandler` cleared.
 *
 * @see include/linux/kprobes.h struct kprobe
 * @example
 * const kp: Kprobe = { symbolName: 'vfs_read', preHandler: (p, regs) => { console.log(regs.get('di')); return 0; } };
 * kprobes.registerKprobe(kp);
 */
export interface Kprobe {
  symbolName?: string;
  offset?: number;
  addr?: bigint | undefined;
  preHandler?: PreHandler;
  postHandler?: PostHandler | undefined;
  faultHandler?: FaultHandler;
  /** Jprobes' `longjmp_break_handler`; other probes leave it unset. */
  breakHandler?: BreakHandler;
  /** Only `KprobeFlag.DISABLED` is honoured at registration (register disabled). */
  flags?: number | undefined;
  /** Times the probe was hit but its handlers not run (re-entry). */
  nmissed?: number | undefined;
}

/** Per-CPU `kprobe_status`. @see include/linux/kprobes.h */
export const KprobeStatus = { HIT_ACTIVE: 0x1, HIT_SS: 0x2, REENTER: 0x4, HIT_SSDONE: 0x8 } as const;
export type KprobeStatusValue = (typeof KprobeStatus)[keyof typeof KprobeStatus];
