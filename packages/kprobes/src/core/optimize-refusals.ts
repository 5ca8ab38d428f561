import type { KprobesArch } from './arch.js';
import type { KprobeEventSink } from './event-sink.js';
import { type OptimizePolicyHost, optimizePolicyRefusal } from './optimize-policy.js';
import type { ProbeSite } from './probe-site.js';

/**
 * Why sites are not jump-optimized: the core's temporary conditions ({@link optimizePolicyRefusal}),
 * then the arch's analysis of the region (`arch_prepare_optimized_kprobe`, then another armed probe
 * inside the region, `arch_check_optimized_kprobe`). What the analysis finds is reported once per
 * site and reason, as a `kprobe:optimize-refused` event.
 * @see kernel/kprobes.c try_to_optimize_kprobe(), arch/x86/kernel/kprobes/opt.c arch_check_optimized_kprobe()
 */
export class OptimizeRefusals {
  /** The last refusal reported per site (an event is published when it changes). */
  private refused = new Map<ProbeSite, string>();

  constructor(
    private readonly k: KprobeEventSink & OptimizePolicyHost,
    private readonly arch: Pick<KprobesArch, 'archPrepareOptimizedKprobe' | 'archCheckOptimizedKprobe'>,
  ) {}

  /** The core's conditions (temporary: never reported). */
  policy(site: ProbeSite, enabled: boolean): string | undefined {
    return optimizePolicyRefusal(this.k, site, enabled);
  }

  /** The arch's conditions: the region analysis, then armed probes inside the region. */
  analysis(site: ProbeSite): string | undefined {
    const d = this.arch.archPrepareOptimizedKprobe(site);
    if (typeof d === 'string') return d;
    return this.arch.archCheckOptimizedKprobe(site, d.size);
  }

  /** Publishes `reason` for the site unless it was the last one reported. */
  report(site: ProbeSite, reason: string): void {
    if (this.refused.get(site) === reason) return;
    this.refused.set(site, reason);
    if (this.k.observed) {
      this.k.emit({
        type: 'kprobe:optimize-refused',
        at: this.k.now(),
        cpu: -1,
        addr: site.addr,
        symbol: site.symbol,
        reason,
      });
    }
  }

  /** Forgets what was reported for the site (it is optimized, or gone). */
  forget(site: ProbeSite): void {
    this.refused.delete(site);
  }

  /** The reported refusals, as plain data (for snapshots). */
  save(): readonly (readonly [ProbeSite, string])[] {
    return Object.freeze([...this.refused]);
  }

  /** Puts back what {@link save} returned. */
  restore(s: readonly (readonly [ProbeSite, string])[]): void {
    this.refused = new Map(s);
  }
}
