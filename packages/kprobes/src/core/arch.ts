import type { PtRegs } from '@int3/kernel';
import type { ArchSite } from './arch-site.js';
import type { BlacklistEntry } from './blacklist-entry.js';
import type { ControlBlock } from './control-block.js';
import type { KprobeEventSink } from './event-sink.js';
import type { ProbeSite } from './probe-site.js';

/** A prepared detour buffer, as the core sees it (`struct optimized_kprobe`'s `optinsn`). */
export interface OptimizedDetour {
  /** The buffer the probe's jump goes to (its first byte is the optimized callback's gate). */
  readonly buf: bigint;
  /** The copied region in the buffer, where the CPU continues. */
  readonly copies: bigint;
  /** Bytes of the detoured code region (`optinsn.size`). */
  readonly size: number;
}

/** kprobes' own text (`.kprobes.text`), which the arch maps: the kretprobe trampoline and `jprobe_return`. */
export interface KprobesTextLayout {
  /** `kretprobe_trampoline`. */
  readonly trampoline: bigint;
  /** `kretprobe_trampoline+1`: the `BUG()` of a return without an instance. */
  readonly trampolineBug: bigint;
  readonly jprobeReturn: bigint;
  readonly jprobeReturnEnd: bigint;
  /** Offset of the per-CPU `jprobe_saved_rsp` word from the GS base. */
  readonly savedSpOffset: number;
}

/**
 * All the core (`kernel/kprobes.c`) knows of the architecture: Linux's arch hooks, camelCased. Every
 * other x86 detail (int3, TF, slots, boosting, detour buffers, `text_poke_bp`) stays behind it.
 * @see include/linux/kprobes.h (the arch_* declarations), include/linux/kprobes.h CONFIG_OPTPROBES
 */
export interface KprobesArch {
  /**
   * `can_probe`: `addr` is on an instruction boundary of its function and is no exception
   * instruction. Throws `KprobeError` (EILSEQ, EINVAL).
   * @see arch/x86/kernel/kprobes/core.c can_probe()
   */
  canProbe(addr: bigint): void;
  /**
   * Copies the instruction at `addr` into a slot. Throws `KprobeError` (EINVAL).
   * @see arch/x86/kernel/kprobes/core.c arch_prepare_kprobe()
   */
  archPrepareKprobe(addr: bigint): ArchSite;
  /** @see arch/x86/kernel/kprobes/core.c arch_arm_kprobe() */
  archArmKprobe(site: ProbeSite): void;
  /** @see arch/x86/kernel/kprobes/core.c arch_disarm_kprobe() */
  archDisarmKprobe(site: ProbeSite): void;
  /** @see arch/x86/kernel/kprobes/core.c arch_remove_kprobe() */
  archRemoveKprobe(site: ProbeSite): void;
  /** The arch's own text, which may not be probed. @see kernel/kprobes.c arch_populate_kprobe_blacklist() */
  archPopulateKprobeBlacklist(): readonly BlacklistEntry[];
  /** kprobes' own text (mapped by the arch at init). */
  readonly text: KprobesTextLayout;
  /** `!CONFIG_PREEMPT`: boost copies that fall through (false models CONFIG_PREEMPT=y, 2.6.12). */
  boosting: boolean;
  /**
   * The int3 handler, from the die notifier chain: true when the trap was a kprobe's (NOTIFY_STOP).
   * @see arch/x86/kernel/kprobes/core.c kprobe_int3_handler()
   */
  kprobeInt3Handler(cpu: number, regs: PtRegs): boolean;
  /** @see arch/x86/kernel/kprobes/core.c kprobe_debug_handler() */
  kprobeDebugHandler(cpu: number, regs: PtRegs): boolean;
  /** @see arch/x86/kernel/kprobes/core.c kprobe_fault_handler() */
  kprobeFaultHandler(cpu: number, regs: PtRegs, trapnr: number): boolean;
  /**
   * Puts back, in `bytes` (read from `addr`), the original bytes under armed probes' int3s and
   * optimized probes' jumps (for decoders).
   * @see arch/x86/kernel/kprobes/common.h recover_probed_instruction()
   */
  recoverProbedInstruction(addr: bigint, bytes: Uint8Array): void;
  /**
   * Analyses the region at `site` and fills a detour buffer; the reason when it cannot be optimized.
   * @see arch/x86/kernel/kprobes/opt.c arch_prepare_optimized_kprobe()
   */
  archPrepareOptimizedKprobe(site: ProbeSite): OptimizedDetour | string;
  /**
   * Another armed probe inside the region forbids the jump: its reason, else undefined.
   * @see arch/x86/kernel/kprobes/opt.c arch_check_optimized_kprobe()
   */
  archCheckOptimizedKprobe(site: ProbeSite, size: number): string | undefined;
  /** The site's prepared detour, if any. */
  archOptimizedDetour(site: ProbeSite): OptimizedDetour | undefined;
  /**
   * A CPU or task is stopped where patching the site now could tear an instruction (the wait of
   * `synchronize_rcu_tasks()` in `kprobe_optimizer()`, which is the arch's to answer here).
   */
  archOptimizedRegionBusy(site: ProbeSite): boolean;
  /**
   * One step of writing the jump (`text_poke_bp`: 1 int3, 2 the displacement, 3 the `e9`); the core
   * puts a sync (a round boundary) between steps 2 and 3.
   * @see arch/x86/kernel/kprobes/opt.c arch_optimize_kprobes()
   */
  archOptimizeKprobe(site: ProbeSite, step: 1 | 2 | 3): void;
  /**
   * One step of taking the jump out (1 int3 over the `e9`, 2 the original bytes back).
   * @see arch/x86/kernel/kprobes/opt.c arch_unoptimize_kprobe()
   */
  archUnoptimizeKprobe(site: ProbeSite, step: 1 | 2): void;
  /**
   * Releases the site's detour (freed once no CPU runs in it).
   * @see arch/x86/kernel/kprobes/opt.c arch_remove_optimized_kprobe()
   */
  archRemoveOptimizedKprobe(site: ProbeSite): void;
  /**
   * Frees the released detours no CPU runs in; returns how many still wait.
   * @see kernel/kprobes.c do_free_cleaned_kprobes()
   */
  archFreeCleanedKprobes(): number;
  /** Detours released but not yet freed. */
  readonly pendingFrees: number;
  /** The arch's dynamic state (boost states, detours), opaque to the core, for snapshots. */
  save(): unknown;
  restore(state: unknown): void;
}

/**
 * What the core offers the arch: the probe table, the per-CPU control blocks, events and whether a
 * site is flagged optimized. The arch holds this, never the core object itself.
 */
export interface KprobesArchHost extends KprobeEventSink {
  /** `get_kprobe`. */
  get(addr: bigint): ProbeSite | undefined;
  /** {@link get} by the int32 halves of the address (no bigint on the trap path). */
  getHalves(lo: number, hi: number): ProbeSite | undefined;
  sites(): IterableIterator<ProbeSite>;
  /** Per-CPU `struct kprobe_ctlblk`. */
  readonly kcb: readonly ControlBlock[];
  /**
   * `kprobe_optimized(p)`: the site is flagged `KPROBE_FLAG_OPTIMIZED` (queued, being patched, patched
   * or being unoptimized), so an int3 hit on it goes through its detour.
   * @see kernel/kprobes.c kprobe_optimized()
   */
  kprobeOptimized(site: ProbeSite): boolean;
}
