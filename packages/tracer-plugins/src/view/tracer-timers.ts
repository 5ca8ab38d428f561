/**
 * Work a tracer runs on the machine's virtual time between rounds (every CPU ran its slice), as a
 * kernel tracer arms an hrtimer: bpftrace's `interval` and `profile` probes.
 *
 * @see kernel/time/hrtimer.c; kernel/events/core.c perf_swevent_hrtimer() (profile sampling)
 */
export interface TracerTimers {
  /** Calls `fn` after every round; returns the handle that removes it. */
  onRoundBoundary(fn: () => void): () => void;
}
