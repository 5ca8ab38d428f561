import { TICK_NS } from '@int3/kernel';
import type { KprobesArch, KprobesArchHost, OptimizedDetour } from './arch.js';
import type { KprobesHost } from './kprobes-host.js';
import type { OptimizePolicyHost } from './optimize-policy.js';
import { OptimizeRefusals } from './optimize-refusals.js';
import { OPTIMIZE_DELAY, type OptimizerState, type OptPhase } from './optimizer-state.js';
import type { ProbeSite } from './probe-site.js';

/** `MAX_OPTIMIZED_LENGTH`: how far before an address a region covering it may start. */
const MAX_REGION = 20;

/**
 * The delayed optimizer of jump-optimized kprobes: `optimize_kprobe` flags a probe and queues it,
 * `unoptimize_kprobe` queues the way back (or does it at once when forced), and `kprobe_optimizer`
 * runs `OPTIMIZE_DELAY` jiffies of virtual time (CPU 0's clock) after a kick, at a round boundary:
 *
 * 1. unoptimize the queued probes (int3 over the jump; after a sync, the original bytes; after another
 *    sync, disarm the disabled ones);
 * 2. wait until no CPU or task is stopped inside a region to patch (`synchronize_rcu_tasks`; a busy
 *    probe stays queued for the next run);
 * 3. optimize the queued probes (text_poke_bp: the int3 is already there; the displacement; after a
 *    sync, the `e9`);
 * 4. free the buffers of released probes no CPU runs in;
 * 5. kick again while work remains.
 *
 * Each sync is one round boundary: every CPU runs between two writes. Everything is driven by virtual
 * time at round boundaries, and the state is part of the kprobes snapshot, so replays stay exact.
 * @see kernel/kprobes.c optimize_kprobe(), unoptimize_kprobe(), kprobe_optimizer()
 */
export class KprobeOptimizer {
  /** `kprobes_allow_optimization` (`debug.kprobes-optimization`). */
  enabled = true;
  /**
   * Jiffies from a kick to the optimizer's run (`OPTIMIZE_DELAY`). Tests may lower it (0: the next
   * round boundary) to put the cross-CPU steps under load.
   */
  delay = OPTIMIZE_DELAY;
  private due: number | undefined;
  private phases = new Map<ProbeSite, OptPhase>();
  private disarmAfter = new Set<ProbeSite>();
  private reoptimize = new Set<ProbeSite>();
  private readonly refusals: OptimizeRefusals;
  /** Why each site on the unoptimizing list is there (for its `kprobe:unoptimized` event). */
  private unoptimizeReason = new Map<ProbeSite, string>();

  constructor(
    private readonly host: Pick<KprobesHost, 'clock' | 'log' | 'kallsyms' | 'onRoundBoundary'>,
    private readonly k: Pick<KprobesArchHost, 'get' | 'sites' | 'emit' | 'observed' | 'now'> & OptimizePolicyHost,
    private readonly arch: KprobesArch,
  ) {
    this.refusals = new OptimizeRefusals(k, arch);
    host.onRoundBoundary(
      () => this.onRoundBoundary(),
      () => this.phases.size === 0 && this.due === undefined && this.arch.pendingFrees === 0,
    );
  }

  /**
   * `kprobe_optimized(p)`: the site is flagged optimized (queued, being patched, patched or being
   * unoptimized), so an int3 hit on it goes through its detour, never single-stepping into a region
   * whose bytes may be half-written (the arch's `setup_detour_execution()`).
   */
  detoured(site: ProbeSite): boolean {
    return this.phases.has(site);
  }

  /**
   * The site's prepared detour (`buf`: the buffer the probe's jump goes to, whose first byte is the
   * optimized callback's gate; `copies`: the copied region after it; `size`: bytes of the detoured
   * region), if any.
   */
  detour(site: ProbeSite): OptimizedDetour | undefined {
    return this.arch.archOptimizedDetour(site);
  }

  /** The site's phase; undefined for a plain int3 probe. */
  phase(site: ProbeSite): OptPhase | undefined {
    return this.phases.get(site);
  }

  /**
   * Why the site is not (going to be) optimized, or undefined when it is optimized or queued.
   * @see kernel/kprobes.c try_to_optimize_kprobe(), optimize_kprobe()
   */
  refusal(site: ProbeSite): string | undefined {
    const phase = this.phases.get(site);
    if (phase === 'queued' || phase === 'tail' || phase === 'optimized') return undefined;
    const why = this.refusals.policy(site, this.enabled) ?? this.refusals.analysis(site);
    if (why !== undefined) return why;
    return phase === undefined ? undefined : 'being unoptimized';
  }

  /**
   * Brings a site's optimization in line with its probes: optimizes it when every condition holds,
   * else unoptimizes it (delayed). Called after every change to the site.
   */
  update(site: ProbeSite, reason = 'not optimizable any more'): void {
    // Temporary conditions (a post-handler, disabled, the sysctl) are not reported as refusals; what
    // the safety analysis finds is, once per reason.
    const policy = this.refusals.policy(site, this.enabled);
    const why = policy ?? this.refusals.analysis(site);
    if (why === undefined) this.optimize(site);
    else {
      if (policy === undefined) this.refusals.report(site, why);
      this.unoptimize(site, `${reason}: ${why}`, false);
    }
  }

  /**
   * `optimize_kprobe`: flags and queues the site (or cancels a pending unoptimization).
   * @see kernel/kprobes.c optimize_kprobe()
   */
  private optimize(site: ProbeSite): void {
    const phase = this.phases.get(site);
    if (phase === 'queued' || phase === 'tail' || phase === 'optimized') return;
    if (phase === 'unqueued') {
      // Nothing was written yet: back to where it was (the jump in, or its `e9` still to come).
      this.phases.set(site, site.optimized ? 'optimized' : 'tail');
      this.disarmAfter.delete(site);
      this.unoptimizeReason.delete(site);
      return;
    }
    if (phase !== undefined) {
      this.reoptimize.add(site);
      return;
    }
    this.refusals.forget(site);
    this.phases.set(site, 'queued');
    this.kick();
  }

  /**
   * `unoptimize_kprobe`: a queued site is just dequeued; a patched one is queued for unoptimizing, or,
   * when `force`d, has its original bytes back at once (safe between instructions: no CPU can be inside
   * a region whose jump is in place, and one hitting the int3 goes around through the detour).
   * @see kernel/kprobes.c unoptimize_kprobe(), force_unoptimize_kprobe()
   */
  unoptimize(site: ProbeSite, reason: string, force: boolean): void {
    const phase = this.phases.get(site);
    if (phase === undefined) return;
    this.reoptimize.delete(site);
    if (phase === 'queued') {
      this.phases.delete(site);
      return;
    }
    if (!force) {
      if (phase === 'optimized' || phase === 'tail') {
        this.phases.set(site, 'unqueued');
        this.unoptimizeReason.set(site, reason);
        this.kick();
      }
      return;
    }
    if (phase === 'optimized' || phase === 'unqueued') this.arch.archUnoptimizeKprobe(site, 1);
    if (phase !== 'unopt-tail') this.arch.archUnoptimizeKprobe(site, 2);
    this.phases.delete(site);
    this.disarmAfter.delete(site);
    this.unoptimizeReason.delete(site);
    site.optimized = false;
    this.emitUnoptimized(site, reason);
  }

  /**
   * Disarming a flagged site: a queued one is dequeued and disarmed now (false); a patched one is
   * unoptimized first and disarmed by the optimizer afterwards (true).
   * @see kernel/kprobes.c __disarm_kprobe(), do_unoptimize_kprobes()
   */
  deferDisarm(site: ProbeSite, reason: string): boolean {
    const phase = this.phases.get(site);
    if (phase === undefined) return false;
    if (phase === 'queued') {
      this.unoptimize(site, reason, false);
      return false;
    }
    this.unoptimize(site, reason, false);
    this.disarmAfter.add(site);
    return true;
  }

  /**
   * Arming a probe at `addr` inside another site's region forcibly unoptimizes that site.
   * @see kernel/kprobes.c __arm_kprobe(), get_optimized_kprobe()
   */
  unoptimizeCovering(addr: bigint): void {
    for (let d = 1n; d < BigInt(MAX_REGION); d++) {
      const site = this.k.get(addr - d);
      const detour = site && this.arch.archOptimizedDetour(site);
      if (site && detour && d < BigInt(detour.size) && this.phases.has(site)) {
        this.unoptimize(site, `probe armed inside the region at ${this.host.kallsyms.format(addr)}`, true);
      }
    }
  }

  /** A probe at `addr` was disarmed or removed: sites it blocked may be optimized now. */
  retryCovering(addr: bigint): void {
    for (let d = 1n; d < BigInt(MAX_REGION); d++) {
      const site = this.k.get(addr - d);
      if (site && !this.phases.has(site)) this.update(site);
    }
  }

  /** A module's text is going away: forget the site's optimization without writing. */
  forget(site: ProbeSite): void {
    this.phases.delete(site);
    this.disarmAfter.delete(site);
    this.reoptimize.delete(site);
    this.unoptimizeReason.delete(site);
    this.refusals.forget(site);
    site.optimized = false;
    this.arch.archRemoveOptimizedKprobe(site);
  }

  /** The site is removed: its original bytes back at once, its buffer freed once unused. */
  release(site: ProbeSite): void {
    this.unoptimize(site, 'unregistered', true);
    this.refusals.forget(site);
    this.arch.archRemoveOptimizedKprobe(site);
  }

  /**
   * `debug.kprobes-optimization`: 0 unoptimizes every probe (delayed, without waiting for the delay),
   * 1 optimizes every probe that can be.
   * @see kernel/kprobes.c optimize_all_kprobes(), unoptimize_all_kprobes()
   */
  setEnabled(on: boolean): void {
    if (on === this.enabled) return;
    this.enabled = on;
    for (const site of [...this.k.sites()]) this.update(site, 'optimization turned off');
    if (!on && this.due !== undefined) this.due = this.host.clock(0);
    this.host.log(0, 6, on ? 'Kprobes globally optimized' : 'Kprobes globally unoptimized');
  }

  /**
   * Runs the optimizer to completion now, between rounds: every queued step done back to back (no CPU
   * runs between the writes, so none can enter a region). A probe a CPU is stopped inside stays queued.
   */
  runNow(): void {
    for (let i = 0; i < 8; i++) {
      this.advance();
      this.due = undefined;
      this.start();
      let pending = false;
      for (const phase of this.phases.values()) if (phase !== 'optimized' && phase !== 'queued') pending = true;
      if (!pending) break;
    }
  }

  /** At every round boundary: advance what is in flight, and run when due. */
  private onRoundBoundary(): void {
    if (this.phases.size === 0 && this.due === undefined && this.arch.pendingFrees === 0) return;
    this.advance();
    if (this.due !== undefined && this.host.clock(0) >= this.due) {
      this.due = undefined;
      this.start();
    } else this.arch.archFreeCleanedKprobes();
  }

  /**
   * The writes that wait for a sync: one step further for each site in flight. (A Map visits keys set
   * during the walk once at most, and a site re-queued here is not advanced: queued sites wait for a run.)
   */
  private advance(): void {
    for (const [site, phase] of this.phases) {
      if (phase === 'unopt-int3') {
        this.arch.archUnoptimizeKprobe(site, 2);
        this.phases.set(site, 'unopt-tail');
      } else if (phase === 'unopt-tail') {
        this.finishUnoptimize(site);
      } else if (phase === 'tail') {
        this.arch.archOptimizeKprobe(site, 3);
        this.phases.set(site, 'optimized');
        site.optimized = true;
        if (this.k.observed) {
          const d = this.arch.archOptimizedDetour(site)!;
          this.k.emit({
            type: 'kprobe:optimized',
            at: this.k.now(),
            cpu: -1,
            addr: site.addr,
            symbol: site.symbol,
            detour: d.buf,
            size: d.size,
          });
        }
      }
    }
  }

  /** `kprobe_optimizer()` Steps 1-5 (see the class). */
  private start(): void {
    // Step 1: unoptimize the queued ones: int3 back over the jump.
    for (const [site, phase] of this.phases) {
      if (phase !== 'unqueued') continue;
      this.arch.archUnoptimizeKprobe(site, 1);
      site.optimized = false;
      this.phases.set(site, 'unopt-int3');
    }
    // Steps 2-3: optimize the queued ones no CPU is inside: int3 (already there), the displacement.
    let again = false;
    for (const [site, phase] of this.phases) {
      if (phase !== 'queued') continue;
      if (this.arch.archOptimizedRegionBusy(site)) {
        again = true;
        continue;
      }
      this.arch.archOptimizeKprobe(site, 1);
      this.arch.archOptimizeKprobe(site, 2);
      this.phases.set(site, 'tail');
    }
    // Step 4: free what released probes left.
    this.arch.archFreeCleanedKprobes();
    // Step 5: kick again while something waits.
    if (again || this.arch.pendingFrees > 0) this.kick();
  }

  private finishUnoptimize(site: ProbeSite): void {
    this.phases.delete(site);
    site.optimized = false;
    const reason = this.unoptimizeReason.get(site) ?? 'unoptimized';
    this.unoptimizeReason.delete(site);
    this.emitUnoptimized(site, reason);
    if (this.disarmAfter.delete(site) && site.armed && site.disabled && !site.gone) {
      this.arch.archDisarmKprobe(site);
      this.retryCovering(site.addr);
    }
    if (this.reoptimize.delete(site)) this.update(site);
  }

  /** `kick_kprobe_optimizer`: run `OPTIMIZE_DELAY` jiffies from now unless a run is already due. */
  private kick(): void {
    if (this.due === undefined) this.due = this.host.clock(0) + this.delay * TICK_NS;
  }

  private emitUnoptimized(site: ProbeSite, reason: string): void {
    if (!this.k.observed) return;
    this.k.emit({
      type: 'kprobe:unoptimized',
      at: this.k.now(),
      cpu: -1,
      addr: site.addr,
      symbol: site.symbol,
      reason,
    });
  }

  save(): OptimizerState {
    return Object.freeze({
      enabled: this.enabled,
      due: this.due,
      phases: Object.freeze([...this.phases].map(([site, phase]) => [site, phase, site.optimized] as const)),
      disarmAfter: Object.freeze([...this.disarmAfter]),
      reoptimize: Object.freeze([...this.reoptimize]),
      refused: this.refusals.save(),
      reasons: Object.freeze([...this.unoptimizeReason]),
    });
  }

  restore(s: OptimizerState): void {
    this.enabled = s.enabled;
    this.due = s.due;
    for (const site of this.phases.keys()) site.optimized = false;
    this.phases = new Map();
    for (const [site, phase, optimized] of s.phases) {
      this.phases.set(site, phase);
      site.optimized = optimized;
    }
    this.disarmAfter = new Set(s.disarmAfter);
    this.reoptimize = new Set(s.reoptimize);
    this.refusals.restore(s.refused);
    this.unoptimizeReason = new Map(s.reasons);
  }
}
