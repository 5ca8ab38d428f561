import type { Machine } from '@int3/kernel';
import type { Kprobes } from '@int3/kprobes';
import type { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import type { TraceFs } from '../tracefs/trace-fs.js';
import type { TracerClock } from './tracer-clock.js';

/**
 * Everything a tracer may use: the machine, kprobes' public API, the tracefs and its trace buffer, the
 * virtual clock, and the arguments it was started with. The same objects are bound under
 * {@link TracerTokens} for constructor injection.
 *
 * @see kernel/trace/trace.h struct trace_array — what a kernel tracer is handed
 */
export interface TracerContext {
  readonly machine: Machine;
  readonly kprobes: Kprobes;
  readonly traceFs: TraceFs;
  readonly buffer: TraceBuffer;
  readonly clock: TracerClock;
  /** The tool's arguments (e.g. function names), empty when none were given. */
  readonly args: readonly string[];
}
