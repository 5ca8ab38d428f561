import type { ProbeSite } from './probe-site.js';

/** What the policy reads of kprobes besides the site: the global switch and kprobes' own probe. */
export interface OptimizePolicyHost {
  /** `kprobes/enabled` is 1. */
  readonly allArmed: boolean;
  /** The kretprobe trampoline's own kprobe (booster off), never optimized. */
  readonly trampolineSite: ProbeSite | undefined;
}

/**
 * The core's conditions for jump-optimizing a site, checked before the arch's region analysis: the
 * sysctl, a live site with an enabled, armed probe, no post-handler (it needs the single-step) and no
 * jprobe (its break handler needs the int3 path). Undefined when they all hold. These are temporary
 * situations: the site is retried when they change.
 * @see kernel/kprobes.c optimize_kprobe(), Documentation/trace/kprobes.rst ("Pre-optimization")
 */
export function optimizePolicyRefusal(k: OptimizePolicyHost, site: ProbeSite, enabled: boolean): string | undefined {
  if (!enabled) return 'optimization is off (debug.kprobes-optimization=0)';
  if (site === k.trampolineSite) return "kprobes' own trampoline";
  if (site.gone) return 'the probed code has gone';
  if (site.children.length === 0) return 'unused';
  if (site.disabled) return 'disabled';
  if (!k.allArmed) return 'kprobes are disabled (kprobes/enabled=0)';
  if (!site.armed) return 'not armed';
  if (site.hasPostHandler) return 'has a post_handler';
  if (site.breakChild) return 'has a break_handler (jprobe)';
  return undefined;
}
