import type { Machine } from '@int3/kernel';
import type { Observable } from 'rxjs';
import { X86KprobesArch } from './arch/x86/x86-kprobes-arch.js';
import type { Jprobe } from './core/jprobes.js';
import type { Kprobe } from './core/kprobe.js';
import type { KprobeEvent } from './core/kprobe-event.js';
import { KprobesCore } from './core/kprobes-core.js';
import type { Kretprobe } from './core/kretprobe.js';
import type { ProbeSite, ProbeState } from './core/probe-site.js';
import {
  type KprobesConfig,
  type KprobesDebugfs,
  type KprobesOptimization,
  kprobesConfig,
  kprobesDebugfs,
  kprobesOptimization,
} from './kprobes-views.js';
import { machineHost } from './machine-host.js';
import { bindGuestKprobes } from './module-api/guest-kprobes.js';

const cores = new WeakMap<Kprobes, KprobesCore>();

/**
 * The core behind a {@link Kprobes} (control blocks, the optimizer's phases, the arch), for this
 * package's tests and its C API; not exported by the package.
 */
export function kprobesCore(k: Kprobes): KprobesCore {
  const core = cores.get(k);
  if (core === undefined) throw new Error('kprobesCore: not a Kprobes made by Kprobes.init');
  return core;
}

/**
 * kprobes on a machine — the composition root (the one place that picks the x86 arch, cuts kprobes'
 * capabilities from the machine and binds the C API for modules) and the package's facade: the
 * registration API of `include/linux/kprobes.h`, its debugfs files, the optimizer's switches and
 * read-only queries about probe sites. The policy behind it is `core/`, the mechanism `arch/x86/`.
 *
 * @see kernel/kprobes.c
 * @example
 * const kprobes = Kprobes.init(machine);
 * kprobes.registerKprobe({ symbolName: 'do_sys_open', preHandler: () => 0 });
 */
export class Kprobes {
  /** Every registration, hit, miss, (un)optimization and removal, frozen. */
  readonly events$: Observable<KprobeEvent>;
  /** `/sys/kernel/debug/kprobes/`: `list`, `blacklist`, `enabled`. */
  readonly debugfs: KprobesDebugfs;
  /** Which Linux the mechanism models: boosting (`!CONFIG_PREEMPT`) and the kretprobe booster. */
  readonly config: KprobesConfig;
  /** The jump optimizer: `debug.kprobes-optimization`, its delay, and why a probe is not optimized. */
  readonly optimization: KprobesOptimization;
  readonly #core: KprobesCore;

  /**
   * Sets kprobes up on a machine: maps its own text (`kretprobe_trampoline`, `jprobe_return`), adds
   * it to kallsyms and the blacklist, hooks the die notifier chain and module notifier, and defines
   * the gates of the C API (`register_kprobe`, …) that modules link against.
   * @see kernel/kprobes.c init_kprobes()
   */
  static init(m: Machine): Kprobes {
    const host = machineHost(m);
    const core = new KprobesCore(host, (h, c) => new X86KprobesArch(h, c));
    bindGuestKprobes(host, core);
    return new Kprobes(core);
  }

  private constructor(core: KprobesCore) {
    this.#core = core;
    cores.set(this, core);
    this.events$ = core.events$;
    this.debugfs = kprobesDebugfs(core);
    this.config = kprobesConfig(core);
    this.optimization = kprobesOptimization(core);
  }

  /**
   * Registers a probe. Errors (as `KprobeError` with the kernel's errno): both or neither of
   * `symbolName`/`addr` → EINVAL; unknown symbol → ENOENT; the same object twice → EINVAL; not kernel or
   * module text, blacklisted, or an exception instruction (int3, ud2, int n) → EINVAL; a module going
   * away → ENOENT; not on an instruction boundary → EILSEQ.
   * @see kernel/kprobes.c register_kprobe()
   */
  registerKprobe(p: Kprobe): void {
    this.#core.registerKprobe(p);
  }

  /**
   * Unregisters a probe: disarms it (unless other probes at the address remain enabled) and frees its
   * slot when it was the last. Unknown probes are ignored, and their `addr` cleared, as the kernel does.
   * @see kernel/kprobes.c unregister_kprobe()
   */
  unregisterKprobe(p: Kprobe): void {
    this.#core.unregisterKprobe(p);
  }

  /**
   * Registers several probes; on a failure, the ones already registered are unregistered and the
   * error is thrown. `num <= 0` → EINVAL.
   * @see kernel/kprobes.c register_kprobes()
   */
  registerKprobes(ps: readonly Kprobe[]): void {
    this.#core.registerKprobes(ps);
  }

  /** @see kernel/kprobes.c unregister_kprobes() */
  unregisterKprobes(ps: readonly Kprobe[]): void {
    this.#core.unregisterKprobes(ps);
  }

  /**
   * Re-enables a disabled probe (arming its address when it was disarmed). Not registered, or gone →
   * EINVAL.
   * @see kernel/kprobes.c enable_kprobe()
   */
  enableKprobe(p: Kprobe): void {
    this.#core.enableKprobe(p);
  }

  /**
   * Disables a probe without unregistering it; the address is disarmed once every probe there is
   * disabled. Not registered → EINVAL.
   * @see kernel/kprobes.c disable_kprobe()
   */
  disableKprobe(p: Kprobe): void {
    this.#core.disableKprobe(p);
  }

  /** @see kernel/kprobes.c register_kretprobe() */
  registerKretprobe(rp: Kretprobe): void {
    this.#core.registerKretprobe(rp);
  }

  /** @see kernel/kprobes.c unregister_kretprobe() */
  unregisterKretprobe(rp: Kretprobe): void {
    this.#core.unregisterKretprobe(rp);
  }

  /** @see kernel/kprobes.c register_jprobe() (2.6 era) */
  registerJprobe(jp: Jprobe): void {
    this.#core.registerJprobe(jp);
  }

  /** @see kernel/kprobes.c unregister_jprobe() (2.6 era) */
  unregisterJprobe(jp: Jprobe): void {
    this.#core.unregisterJprobe(jp);
  }

  /**
   * The probe site at `addr` (`get_kprobe`): its probes, whether it is armed, gone or optimized, and
   * the slot holding its copied instruction.
   * @see kernel/kprobes.c get_kprobe()
   */
  get(addr: bigint): ProbeSite | undefined {
    return this.#core.get(addr);
  }

  /** Every probe site, kprobes' own (the kretprobe trampoline's, while its booster is off) included. */
  sites(): IterableIterator<ProbeSite> {
    return this.#core.sites();
  }

  /**
   * Every registered `struct kprobe` (kretprobes' and jprobes' entry probes included), in registration
   * order, with its kind, site and state (see `kprobeListFlags`).
   */
  probes(): IterableIterator<ProbeState> {
    return this.#core.probeStates();
  }

  /**
   * Puts back, in `bytes` (read from `addr`), the original bytes under armed probes' int3s and
   * optimized probes' jumps, as a decoder must see them.
   * @see arch/x86/kernel/kprobes/common.h recover_probed_instruction()
   * @example
   * const bytes = m.space.read(fn, 16).slice();
   * kprobes.recoverProbedInstruction(fn, bytes);
   */
  recoverProbedInstruction(addr: bigint, bytes: Uint8Array): void {
    this.#core.recoverProbedInstruction(addr, bytes);
  }
}
