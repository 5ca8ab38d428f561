/**
 * One Chrome Trace Event: `X` (complete: ts + dur), `B`/`E` (begin/end), `i` (instant, `s: 't'` thread
 * scope, `s: 'p'` process scope) or `M` (metadata: process_name, thread_name). Times are microseconds.
 *
 * @see https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU (Trace Event Format)
 */
export interface ChromeTraceEvent {
  readonly name: string;
  readonly ph: 'X' | 'B' | 'E' | 'i' | 'M';
  readonly pid: number;
  readonly tid: number;
  readonly ts?: number;
  readonly dur?: number;
  readonly cat?: string;
  readonly s?: 't' | 'p';
  readonly args?: Readonly<Record<string, string | number | readonly (string | number)[]>>;
}

/** The JSON object format: `traceEvents` plus display options; what Perfetto UI and chrome://tracing open. */
export interface ChromeTraceDocument {
  readonly traceEvents: readonly ChromeTraceEvent[];
  readonly displayTimeUnit: 'ns' | 'ms';
  readonly otherData: Readonly<Record<string, string>>;
}
