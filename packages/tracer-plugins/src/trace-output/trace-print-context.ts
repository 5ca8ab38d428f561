import { tracePrintLatFmt } from './lat-fmt.js';

/** What the line prefix shows about a record. */
export interface TraceContext {
  readonly comm: string;
  readonly pid: number;
  readonly cpu: number;
  /** `common_flags`. */
  readonly flags: number;
  /** `common_preempt_count`. */
  readonly preemptCount: number;
  /** Timestamp in nanoseconds. */
  readonly ts: number;
}

const SECS_PAD = ['', '    ', '   ', '  ', ' '];

/**
 * `<secs>.<usecs>` as `" %5lu.%06lu"` prints it (without the leading space): the nanoseconds are
 * rounded to the nearest microsecond first, as `ns2usecs()` does.
 *
 * @see kernel/trace/trace.c ns2usecs(), kernel/trace/trace_output.c trace_print_time()
 */
export function formatTraceTimestamp(ts: number): string {
  const usecs = Math.floor((ts + 500) / 1000);
  const secs = Math.floor(usecs / 1_000_000);
  // 1_000_000 + rem has seven digits: dropping the leading 1 zero-pads rem to six.
  const frac = String(1_000_000 + usecs - secs * 1_000_000).slice(1);
  return secs < 10_000 ? `${SECS_PAD[String(secs).length]}${secs}.${frac}` : `${secs}.${frac}`;
}

/**
 * The trace line prefix `"%16s-%-7d [%03d] %s %5lu.%06lu: "`: comm right-aligned in 16, pid
 * left-aligned in 7, the CPU in three digits, the five latency flags, the timestamp.
 *
 * @see kernel/trace/trace_output.c trace_print_context()
 * @example
 * tracePrintContext({ comm: 'sh', pid: 75, cpu: 0, flags: 0, preemptCount: 0, ts: 33_793_362_000 });
 * // '              sh-75      [000] .....    33.793362: '
 */
export function tracePrintContext(c: TraceContext): string {
  return `${c.comm.padStart(16)}-${String(c.pid).padEnd(7)} [${String(c.cpu).padStart(3, '0')}] ${tracePrintLatFmt(c.flags, c.preemptCount)} ${formatTraceTimestamp(c.ts)}: `;
}
