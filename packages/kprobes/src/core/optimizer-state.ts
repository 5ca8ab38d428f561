import type { ProbeSite } from './probe-site.js';

/** `OPTIMIZE_DELAY`: jiffies between a kick and the optimizer's run. */
export const OPTIMIZE_DELAY = 5;

/**
 * Where a site flagged `KPROBE_FLAG_OPTIMIZED` stands. `queued`: on `optimizing_list`; `tail`: the
 * jump's displacement written (text_poke_bp step 2), its `e9` due at the next sync; `optimized`: the
 * jump is in; `unqueued`: on `unoptimizing_list`; `unopt-int3` and `unopt-tail`: the int3 is back, then
 * the original bytes, each waiting for a sync. Sites in none of these are plain int3 probes.
 */
export type OptPhase = 'queued' | 'tail' | 'optimized' | 'unqueued' | 'unopt-int3' | 'unopt-tail';

/** The optimizer's state, as plain data (for snapshots). */
export interface OptimizerState {
  readonly enabled: boolean;
  readonly due: number | undefined;
  readonly phases: readonly (readonly [ProbeSite, OptPhase, boolean])[];
  readonly disarmAfter: readonly ProbeSite[];
  readonly reoptimize: readonly ProbeSite[];
  readonly refused: readonly (readonly [ProbeSite, string])[];
  readonly reasons: readonly (readonly [ProbeSite, string])[];
}
