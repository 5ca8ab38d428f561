import type { OptimizedDetour } from './core/arch.js';
import type { Kprobe } from './core/kprobe.js';
import type { KprobesCore } from './core/kprobes-core.js';

/**
 * kprobes' files in debugfs (`/sys/kernel/debug/kprobes/`), as text.
 * @see kernel/kprobes.c debugfs_kprobe_init()
 */
export interface KprobesDebugfs {
  /** `kprobes/list`: one line per probe (see `kprobeListFlags` for its flags). */
  list(): string;
  /** `kprobes/blacklist`: `0xstart-0xend\tsym` per blacklisted range. */
  blacklist(): string;
  /** Reads `kprobes/enabled`: `1\n` while probes are armed, `0\n` after `0` was written. */
  enabled(): string;
  /**
   * Writes `kprobes/enabled` (`1`/`y`/`Y` re-arm every probe, `0`/`n`/`N` disarm them without changing
   * their own state); false for a value the kernel refuses (EINVAL).
   * @see kernel/kprobes.c write_enabled_file_bool(), arm_all_kprobes(), disarm_all_kprobes()
   */
  writeEnabled(text: string): boolean;
}

/** How the x86 half is built: the switches that pick which Linux the mechanism models. */
export interface KprobesConfig {
  /**
   * Boosting of copied instructions (a jump back instead of the single-step's #DB; x86-64's
   * kprobe-booster, 2.6.25), true by default, as with `!CONFIG_PREEMPT`; false models
   * CONFIG_PREEMPT=y and 2.6.12's single-step path.
   * @see arch/x86/kernel/kprobes/core.c can_boost()
   */
  boosting: boolean;
  /**
   * The kretprobe booster (2.6.25): the trampoline runs the return handlers without a trap, true by
   * default; false returns through the trampoline's own kprobe (int3 and a single-step), as in 2.6.12.
   * Switching is refused (`KprobeError` EBUSY) while a CPU is inside the trampoline's kprobe.
   * @see arch/x86/kernel/kprobes/core.c kretprobe_trampoline, trampoline_handler()
   */
  kretprobeBooster: boolean;
}

/**
 * The jump optimizer (`CONFIG_OPTPROBES`): its sysctl, its delay, and queries about a probe's jump.
 * @see kernel/kprobes.c kprobe_optimizer(), Documentation/trace/kprobes.rst "Optimization"
 */
export interface KprobesOptimization {
  /**
   * `debug.kprobes-optimization` (`/proc/sys/debug/kprobes-optimization`), true by default. Setting
   * false unoptimizes every optimized probe, true optimizes every probe that can be; each logs
   * `Kprobes globally optimized` / `Kprobes globally unoptimized`.
   * @see kernel/kprobes.c proc_kprobes_optimization_handler()
   */
  enabled: boolean;
  /**
   * Jiffies from a change to the optimizer's run (`OPTIMIZE_DELAY`, 5). Tests may lower it (0: the next
   * round boundary) to put the cross-CPU steps under load.
   */
  delay: number;
  /**
   * Runs the delayed optimizer to completion now, between rounds, instead of waiting for its delay:
   * every step of every queued (un)optimization is done. A probe a CPU is stopped inside stays queued.
   * @see kernel/kprobes.c wait_for_kprobe_optimizer()
   * @example
   * k.registerKprobe(kp);
   * k.optimization.runNow();
   * k.get(kp.addr!)!.optimized; // true when the site could be optimized
   */
  runNow(): void;
  /**
   * Why `p`'s site is not jump-optimized (`has a post_handler`, `disabled`, `optimization is off
   * (debug.kprobes-optimization=0)`, `probe inside the region at <sym+off>`, or the safety analysis'
   * message); undefined when it is optimized or queued for optimization, or `p` is not registered.
   * @see kernel/kprobes.c try_to_optimize_kprobe()
   */
  refusal(p: Kprobe): string | undefined;
  /**
   * The detour buffer of the probe at `addr` (`buf`: where its jump goes, whose first byte is the
   * optimized callback's gate; `copies`: the copied region after it; `size`: bytes of the detoured
   * region), while one is prepared; undefined for a plain int3 probe or no probe.
   * @see arch/x86/kernel/kprobes/opt.c arch_prepare_optimized_kprobe()
   */
  detour(addr: bigint): OptimizedDetour | undefined;
}

/** {@link KprobesDebugfs} over the core. */
export function kprobesDebugfs(core: KprobesCore): KprobesDebugfs {
  return Object.freeze({
    list: () => core.list(),
    blacklist: () => core.blacklistText(),
    enabled: () => core.enabledText(),
    writeEnabled: (text: string) => core.writeEnabled(text),
  });
}

/** {@link KprobesConfig} over the core and its arch. */
export function kprobesConfig(core: KprobesCore): KprobesConfig {
  return Object.seal({
    get boosting() {
      return core.arch.boosting;
    },
    set boosting(on: boolean) {
      core.arch.boosting = on;
    },
    get kretprobeBooster() {
      return core.kretprobes.booster;
    },
    set kretprobeBooster(on: boolean) {
      core.kretprobes.booster = on;
    },
  });
}

/** {@link KprobesOptimization} over the core's optimizer. */
export function kprobesOptimization(core: KprobesCore): KprobesOptimization {
  return Object.seal({
    get enabled() {
      return core.optimization;
    },
    set enabled(on: boolean) {
      core.setOptimization(on);
    },
    get delay() {
      return core.optimizer.delay;
    },
    set delay(jiffies: number) {
      core.optimizer.delay = jiffies;
    },
    runNow: () => core.optimizeNow(),
    refusal: (p: Kprobe) => core.optimizeRefusal(p),
    detour: (addr: bigint) => {
      const site = core.get(addr);
      return site === undefined ? undefined : core.optimizer.detour(site);
    },
  });
}
