/**
 * The virtual clock tracers timestamp with: nanoseconds of guest time on a CPU, the same clock the
 * trace buffer stamps records with (ftrace's `local` clock).
 *
 * @see kernel/trace/trace_clock.c trace_clock_local()
 */
export interface TracerClock {
  /** Virtual ns on `cpu`. */
  now(cpu: number): number;
}
