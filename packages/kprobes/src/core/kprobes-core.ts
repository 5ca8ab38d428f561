import { DieVal, ModuleState, NotifyResult } from '@int3/kernel';
import { type Observable, Subject } from 'rxjs';
import { KprobeError } from '../kprobe-error.js';
import type { KprobesArch, KprobesArchHost } from './arch.js';
import { Blacklist } from './blacklist.js';
import { ControlBlock } from './control-block.js';
import { kprobesEnabledText, kprobesList, writeKprobesEnabled } from './debugfs.js';
import { type Jprobe, Jprobes } from './jprobes.js';
import { type Kprobe, KprobeFlag } from './kprobe.js';
import { checkKprobeAddressSafe, kprobeAddr } from './kprobe-address.js';
import type { KprobeEvent } from './kprobe-event.js';
import type { KprobesHost } from './kprobes-host.js';
import { registerKprobesSnapshot } from './kprobes-state.js';
import type { Kretprobe } from './kretprobe.js';
import { Kretprobes } from './kretprobes.js';
import { KprobeOptimizer } from './optimizer.js';
import { type ProbeKind, ProbeSite, ProbeState } from './probe-site.js';
import { ProbeTable } from './probe-table.js';

/** kprobes' registrations at a snapshot ({@link KprobesCore.saveRegistrations}). */
export interface RegistrationsState {
  readonly sites: readonly (readonly [ProbeSite, readonly ProbeState[]])[];
  readonly registered: readonly (readonly [Kprobe, ProbeState, bigint | undefined])[];
}

/** Priority of kprobes' die notifier: first in the chain, as `kprobe_exceptions_nb` is. */
export const KPROBES_NOTIFIER_PRIORITY = 0x7fffffff;

/** Builds the arch's half of kprobes on the core's view ({@link KprobesArchHost}). */
export type KprobesArchFactory = (host: KprobesHost, core: KprobesArchHost) => KprobesArch;

/**
 * kprobes on a kernel: registration and its errno paths, aggregation of probes at one address,
 * enable/disable, the global switch, module unloading — the policy of `kernel/kprobes.c`. The
 * mechanism (int3 arming, single-step, resume fixups, the jump detour) is the {@link KprobesArch} the
 * composition root gives it; the core knows nothing else of the architecture.
 *
 * @see kernel/kprobes.c
 */
export class KprobesCore implements KprobesArchHost {
  readonly events$: Observable<KprobeEvent>;
  readonly arch: KprobesArch;
  readonly blacklist: Blacklist;
  /** Per-CPU control blocks (`struct kprobe_ctlblk`). */
  readonly kcb: readonly ControlBlock[];
  readonly kretprobes: Kretprobes;
  readonly jprobes: Jprobes;
  /** The delayed optimizer of jump-optimized probes. */
  readonly optimizer: KprobeOptimizer;
  private readonly table = new ProbeTable();
  private readonly registered = new Map<Kprobe, ProbeState>();
  private readonly eventSubject = new Subject<KprobeEvent>();
  private allDisarmed = false;

  /**
   * Sets the core up: its own text and the blacklist (through the arch), the die notifier (the arch's
   * handlers), the module notifier, the optimizer and the snapshot provider.
   * @see kernel/kprobes.c init_kprobes()
   */
  constructor(
    readonly host: KprobesHost,
    makeArch: KprobesArchFactory,
  ) {
    const m = host;
    this.events$ = this.eventSubject.asObservable();
    this.kcb = m.cpus.map(() => new ControlBlock());
    this.blacklist = new Blacklist(m);
    this.arch = makeArch(host, this);
    this.blacklist.addText(this.arch.archPopulateKprobeBlacklist());
    this.optimizer = new KprobeOptimizer(host, this, this.arch);
    m.registerDieNotifier('kprobes', KPROBES_NOTIFIER_PRIORITY, (args) => {
      switch (args.val) {
        case DieVal.INT3:
          return this.arch.kprobeInt3Handler(args.cpu, args.regs) ? NotifyResult.STOP : NotifyResult.DONE;
        case DieVal.DEBUG:
          return this.arch.kprobeDebugHandler(args.cpu, args.regs) ? NotifyResult.STOP : NotifyResult.DONE;
        case DieVal.GPF:
        case DieVal.PAGE_FAULT:
          return this.arch.kprobeFaultHandler(args.cpu, args.regs, args.trapnr) ? NotifyResult.STOP : NotifyResult.DONE;
        default:
          return NotifyResult.DONE;
      }
    });
    this.kretprobes = new Kretprobes(host, this, this.arch.text);
    this.jprobes = new Jprobes(host, this, this.arch.text);
    registerKprobesSnapshot(host, this, this.kretprobes, this.jprobes, this.arch, this.optimizer);
    m.modules.onModule((state, mod) => {
      if (state === ModuleState.COMING) this.blacklist.addModule(mod);
      if (state !== ModuleState.GOING) return;
      this.blacklist.removeModule(mod);
      for (const site of this.table.values()) {
        if (site.addr >= mod.textStart && site.addr < mod.textEnd) this.killProbe(site, mod.name);
      }
    });
  }

  /**
   * Registers a probe. Errors (as `KprobeError` with the kernel's errno): both or neither of
   * `symbolName`/`addr` → EINVAL; unknown symbol → ENOENT; the same object twice → EINVAL; not kernel or
   * module text, blacklisted, or an exception instruction (int3, ud2, int n) → EINVAL; a module going
   * away → ENOENT; not on an instruction boundary → EILSEQ.
   *
   * @see kernel/kprobes.c register_kprobe()
   */
  registerKprobe(p: Kprobe): void {
    this.registerAs(p, 'k');
  }

  /** {@link registerKprobe} for the entry probe of a kretprobe (`r`) or a jprobe (`j`). */
  registerAs(p: Kprobe, kind: ProbeKind): void {
    const addr = this.kprobeAddr(p);
    if (this.registered.has(p)) throw new KprobeError('EINVAL', 'this kprobe is already registered');
    p.flags = (p.flags ?? 0) & KprobeFlag.DISABLED;
    p.nmissed = 0;
    checkKprobeAddressSafe(this.host, this.blacklist, addr, (a) => this.arch.canProbe(a));
    const existing = this.table.get(addr);
    if (existing) {
      this.registerAggr(existing, p, kind);
      return;
    }
    const site = this.newSite(addr);
    const state = new ProbeState(p, kind, site);
    site.children.unshift(state);
    p.addr = addr;
    this.table.add(site);
    this.registered.set(p, state);
    this.emit({ type: 'kprobe:registered', at: this.now(), cpu: -1, addr, symbol: site.symbol, kind });
    if (!this.allDisarmed && !state.disabled) this.armKprobe(site);
  }

  /**
   * Unregisters a probe: disarms it (unless other probes at the address remain enabled) and frees its
   * slot when it was the last. Unknown probes are ignored, and their `addr` cleared, as the kernel does.
   * @see kernel/kprobes.c unregister_kprobe()
   */
  unregisterKprobe(p: Kprobe): void {
    const state = this.registered.get(p);
    if (!state) {
      p.addr = undefined;
      return;
    }
    const site = state.site;
    this.registered.delete(p);
    site.children.splice(site.children.indexOf(state), 1);
    this.emit({
      type: 'kprobe:unregistered',
      at: this.now(),
      cpu: -1,
      addr: site.addr,
      symbol: site.symbol,
      kind: state.kind,
    });
    if (site.children.length === 0) {
      this.optimizer.release(site);
      if (site.armed) this.arch.archDisarmKprobe(site);
      this.table.remove(site);
      this.arch.archRemoveKprobe(site);
      this.optimizer.retryCovering(site.addr);
    } else if (site.armed && site.disabled) {
      this.disarmKprobe(site, 'disabled');
    } else if (site.armed) {
      this.optimizer.update(site);
    }
  }

  /**
   * Registers several probes; on a failure, the ones already registered are unregistered and the
   * error is thrown. `num <= 0` → EINVAL.
   * @see kernel/kprobes.c register_kprobes()
   */
  registerKprobes(ps: readonly Kprobe[]): void {
    if (ps.length === 0) throw new KprobeError('EINVAL', 'no probes given');
    for (let i = 0; i < ps.length; i++) {
      try {
        this.registerKprobe(ps[i]);
      } catch (e) {
        for (let j = 0; j < i; j++) this.unregisterKprobe(ps[j]);
        throw e;
      }
    }
  }

  /** Unregisters several probes. */
  unregisterKprobes(ps: readonly Kprobe[]): void {
    for (const p of ps) this.unregisterKprobe(p);
  }

  /**
   * Re-enables a disabled probe (arming its address when it was disarmed). Not registered, or gone →
   * EINVAL.
   * @see kernel/kprobes.c enable_kprobe()
   */
  enableKprobe(p: Kprobe): void {
    const state = this.registered.get(p);
    if (!state) throw new KprobeError('EINVAL', 'enable_kprobe: not a registered kprobe');
    if (state.gone) throw new KprobeError('EINVAL', 'enable_kprobe: the probed code has gone');
    p.flags = (p.flags ?? 0) & ~KprobeFlag.DISABLED;
    if (!state.site.armed && !this.allDisarmed && !state.site.gone) this.armKprobe(state.site);
    else if (state.site.armed) this.optimizer.update(state.site);
  }

  /**
   * Disables a probe without unregistering it; the address is disarmed once every probe there is
   * disabled. Not registered → EINVAL.
   * @see kernel/kprobes.c disable_kprobe()
   */
  disableKprobe(p: Kprobe): void {
    const state = this.registered.get(p);
    if (!state) throw new KprobeError('EINVAL', 'disable_kprobe: not a registered kprobe');
    p.flags = (p.flags ?? 0) | KprobeFlag.DISABLED;
    if (state.site.armed && state.site.disabled) this.disarmKprobe(state.site, 'disabled');
    else if (state.site.armed) this.optimizer.update(state.site);
  }

  /**
   * `/sys/kernel/debug/kprobes/enabled`: disarms or re-arms every probe without changing any probe's
   * own enabled state. The kretprobe trampoline stays armed (instances in flight return through it).
   * @see kernel/kprobes.c arm_all_kprobes(), disarm_all_kprobes()
   */
  setAllArmed(on: boolean): void {
    if (on === !this.allDisarmed) return;
    this.allDisarmed = !on;
    for (const site of this.table.values()) {
      if (site.gone || site === this.kretprobes.trampolineSite) continue;
      if (on && !site.disabled && !site.armed) this.armKprobe(site);
      if (!on && site.armed) {
        this.optimizer.unoptimize(site, 'kprobes globally disabled', true);
        this.arch.archDisarmKprobe(site);
      }
    }
    this.host.log(0, 6, on ? 'Kprobes globally enabled' : 'Kprobes globally disabled');
  }

  /** The kretprobe trampoline's own probe while the kretprobe booster is off. */
  get trampolineSite(): ProbeSite | undefined {
    return this.kretprobes?.trampolineSite;
  }

  /** True unless `enabled` was set to 0. */
  get allArmed(): boolean {
    return !this.allDisarmed;
  }

  /** `debug.kprobes-optimization` (`/proc/sys/debug/kprobes-optimization`): true by default. */
  get optimization(): boolean {
    return this.optimizer.enabled;
  }

  /**
   * Writes `debug.kprobes-optimization`: false unoptimizes every optimized probe, true optimizes every
   * probe that can be; logs `Kprobes globally optimized` / `Kprobes globally unoptimized`.
   * @see kernel/kprobes.c proc_kprobes_optimization_handler()
   */
  setOptimization(on: boolean): void {
    this.optimizer.setEnabled(on);
  }

  /**
   * Runs the delayed optimizer to completion now, between rounds, instead of waiting for its delay:
   * every step of every queued (un)optimization is done. A probe a CPU is stopped inside stays queued.
   * @see kernel/kprobes.c wait_for_kprobe_optimizer()
   * @example
   * k.registerKprobe(kp);
   * k.optimizeNow();
   * k.get(kp.addr!)!.optimized; // true when the site could be optimized
   */
  optimizeNow(): void {
    this.optimizer.runNow();
  }

  /**
   * Why `p`'s site is not jump-optimized (`has a post_handler`, `disabled`, `optimization is off
   * (debug.kprobes-optimization=0)`, `probe inside the region at <sym+off>`, or the safety analysis'
   * message); undefined when it is optimized or queued for optimization, or `p` is not registered.
   */
  optimizeRefusal(p: Kprobe): string | undefined {
    const state = this.registered.get(p);
    return state ? this.optimizer.refusal(state.site) : undefined;
  }

  /** @see kernel/kprobes.c register_kretprobe() */
  registerKretprobe(rp: Kretprobe): void {
    this.kretprobes.registerKretprobe(rp);
  }

  /** @see kernel/kprobes.c unregister_kretprobe() */
  unregisterKretprobe(rp: Kretprobe): void {
    this.kretprobes.unregisterKretprobe(rp);
  }

  /** @see kernel/kprobes.c register_jprobe() (2.6 era) */
  registerJprobe(jp: Jprobe): void {
    this.jprobes.registerJprobe(jp);
  }

  /** @see kernel/kprobes.c unregister_jprobe() (2.6 era) */
  unregisterJprobe(jp: Jprobe): void {
    this.jprobes.unregisterJprobe(jp);
  }

  /** `/sys/kernel/debug/kprobes/list`. */
  list(): string {
    return kprobesList(this);
  }

  /** `/sys/kernel/debug/kprobes/blacklist`. */
  blacklistText(): string {
    return this.blacklist.text();
  }

  /** Reads `/sys/kernel/debug/kprobes/enabled`. */
  enabledText(): string {
    return kprobesEnabledText(this);
  }

  /** Writes `/sys/kernel/debug/kprobes/enabled`; false for a value the kernel refuses (EINVAL). */
  writeEnabled(text: string): boolean {
    return writeKprobesEnabled(this, text);
  }

  /** Every registered `struct kprobe` (kretprobes' and jprobes' included). */
  registeredProbes(): IterableIterator<Kprobe> {
    return this.registered.keys();
  }

  /** kprobes' record of every registered probe, in registration order. */
  probeStates(): IterableIterator<ProbeState> {
    return this.registered.values();
  }

  /**
   * The registrations as they are now, for snapshots: every site with its probes (newest first) and
   * every registered probe with its record and its `addr`, all by identity.
   */
  saveRegistrations(): RegistrationsState {
    return Object.freeze({
      sites: Object.freeze([...this.table.values()].map((site) => Object.freeze([site, [...site.children]] as const))),
      registered: Object.freeze([...this.registered].map(([p, st]) => Object.freeze([p, st, p.addr] as const))),
    });
  }

  /**
   * Puts the registrations of {@link saveRegistrations} back, touching no memory (a snapshot's restore
   * brings the bytes back, armed or not); a probe registered since has its `addr` cleared, as
   * unregistration does.
   */
  restoreRegistrations(s: RegistrationsState): void {
    for (const p of this.registered.keys()) p.addr = undefined;
    for (const site of [...this.table.values()]) this.table.remove(site);
    this.registered.clear();
    for (const [site, children] of s.sites) {
      site.children.splice(0, site.children.length, ...children);
      this.table.add(site);
    }
    for (const [p, st, addr] of s.registered) {
      this.registered.set(p, st);
      p.addr = addr;
    }
  }

  /** Restores the global switch without arming anything (snapshot restore: memory is restored too). */
  restoreAllArmed(on: boolean): void {
    this.allDisarmed = !on;
  }

  /** The probe site at `addr` (`get_kprobe`). */
  get(addr: bigint): ProbeSite | undefined {
    return this.table.get(addr);
  }

  /**
   * {@link get} by the address's int32 halves, as the CPU keeps `rip` (the trap path: no bigint is
   * made unless two sites share the low half).
   */
  getHalves(lo: number, hi: number): ProbeSite | undefined {
    return this.table.getHalves(lo, hi);
  }

  /** `kprobe_optimized(p)`: see {@link KprobesArchHost.kprobeOptimized}. */
  kprobeOptimized(site: ProbeSite): boolean {
    return this.optimizer.detoured(site);
  }

  /**
   * Puts back, in `bytes` (read from `addr`), the original bytes under armed probes' int3s and
   * optimized probes' jumps, as a decoder must see them.
   * @see arch/x86/kernel/kprobes/core.c recover_probed_instruction()
   * @example
   * const bytes = m.space.read(fn, 16).slice();
   * kprobes.recoverProbedInstruction(fn, bytes);
   */
  recoverProbedInstruction(addr: bigint, bytes: Uint8Array): void {
    this.arch.recoverProbedInstruction(addr, bytes);
  }

  /** Every probe site. */
  sites(): IterableIterator<ProbeSite> {
    return this.table.values();
  }

  /** kprobes' record of a registered probe. */
  stateOf(p: Kprobe): ProbeState | undefined {
    return this.registered.get(p);
  }

  /** Publishes an event when someone listens (free otherwise). */
  emit(e: KprobeEvent): void {
    if (this.eventSubject.observed) this.eventSubject.next(Object.freeze(e));
  }

  /** True when `events$` has subscribers (handlers skip building events otherwise). */
  get observed(): boolean {
    return this.eventSubject.observed;
  }

  /** Virtual time of CPU 0 (for events outside a hit). */
  now(cpu = 0): number {
    return this.host.clock(cpu);
  }

  /**
   * Registers a probe kprobes places on its own text (the kretprobe trampoline), which the safety
   * checks would refuse.
   */
  registerOwn(p: Kprobe, addr: bigint): ProbeSite {
    const site = this.newSite(addr);
    const state = new ProbeState(p, 'k', site);
    site.children.push(state);
    p.addr = addr;
    p.flags = 0;
    p.nmissed = 0;
    this.table.add(site);
    this.registered.set(p, state);
    this.arch.archArmKprobe(site);
    return site;
  }

  /** Removes a probe of kprobes' own ({@link registerOwn}), quietly as it came. */
  unregisterOwn(p: Kprobe): void {
    const state = this.registered.get(p);
    if (!state) return;
    const site = state.site;
    this.registered.delete(p);
    if (site.armed) this.arch.archDisarmKprobe(site);
    this.table.remove(site);
    this.arch.archRemoveKprobe(site);
    p.addr = undefined;
  }

  private newSite(addr: bigint): ProbeSite {
    const loc = this.host.kallsyms.lookup(addr);
    const symbol = loc ? `${loc.sym.name}+0x${loc.offset.toString(16)}` : `0x${addr.toString(16)}`;
    return new ProbeSite(addr, symbol, loc?.sym.module, this.arch.archPrepareKprobe(addr));
  }

  /** `_kprobe_addr`: the address from `symbolName` + `offset`, or `addr` + `offset` (see {@link kprobeAddr}). */
  kprobeAddr(p: Kprobe): bigint {
    return kprobeAddr(this.host, p);
  }

  /**
   * Adds `p` to the probes at an address that already has one, turning it into an aggregate.
   * @see kernel/kprobes.c register_aggr_kprobe()
   */
  private registerAggr(site: ProbeSite, p: Kprobe, kind: ProbeKind): void {
    if (site.gone) throw new KprobeError('EINVAL', `${site.symbol}: the probed code has gone`);
    if (p.breakHandler && site.breakChild) throw new KprobeError('EEXIST', `${site.symbol} already has a jprobe`);
    const state = new ProbeState(p, kind, site);
    site.children.unshift(state);
    p.addr = site.addr;
    this.registered.set(p, state);
    this.emit({ type: 'kprobe:registered', at: this.now(), cpu: -1, addr: site.addr, symbol: site.symbol, kind });
    if (p.postHandler || p.breakHandler) {
      this.optimizer.unoptimize(site, p.postHandler ? 'a post_handler joined' : 'a jprobe joined', true);
    }
    if (!site.armed && !this.allDisarmed && !site.disabled) this.armKprobe(site);
    else if (site.armed) this.optimizer.update(site);
  }

  /**
   * `__arm_kprobe`: a site optimized over this address is unoptimized first, then the int3 goes in, then
   * the site is queued for optimization if it can be.
   * @see kernel/kprobes.c __arm_kprobe()
   */
  private armKprobe(site: ProbeSite): void {
    this.optimizer.unoptimizeCovering(site.addr);
    this.arch.archArmKprobe(site);
    this.optimizer.update(site);
  }

  /**
   * `__disarm_kprobe`: an optimized site is unoptimized first and disarmed by the optimizer after; a
   * site this one kept from being optimized is retried.
   * @see kernel/kprobes.c __disarm_kprobe()
   */
  private disarmKprobe(site: ProbeSite, reason: string): void {
    if (this.optimizer.deferDisarm(site, reason)) return;
    this.arch.archDisarmKprobe(site);
    this.optimizer.retryCovering(site.addr);
  }

  /**
   * A module's text is going away: its probes become GONE and are disarmed without touching the
   * memory, which is about to be freed.
   * @see kernel/kprobes.c kill_kprobe()
   */
  private killProbe(site: ProbeSite, module: string): void {
    site.gone = true;
    for (const c of site.children) c.kp.flags = (c.kp.flags ?? 0) | KprobeFlag.GONE;
    this.optimizer.forget(site);
    site.armed = false; // nothing is written: the text is going away
    this.emit({ type: 'kprobe:gone', at: this.now(), cpu: -1, addr: site.addr, symbol: site.symbol, module });
  }
}
