import type { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import type { TracerView } from '../view/tracer-view.js';

/**
 * Everything a tracer may use: the {@link TracerView} of the machine (registers, memory, current task,
 * symbols, clock, CPUs, the kprobes API), the trace buffer, and the arguments it was started with. A
 * tracer is handed no `Machine`, `Kprobes` or `TraceFs`. The same objects are bound under
 * {@link TracerTokens} for constructor injection.
 *
 * @see kernel/trace/trace.h struct trace_array — what a kernel tracer is handed
 * @example
 * start(ctx: TracerContext) {
 *   ctx.kprobes.registerKprobe({
 *     symbolName: 'do_sys_open',
 *     preHandler: (_p, regs) => {
 *       const cpu = ctx.regs.smpProcessorId(regs);
 *       console.log(ctx.tasks.current(cpu)?.comm, ctx.memory.readString(cpu, ctx.regs.get(regs, 'si'), 256));
 *       return 0;
 *     },
 *   });
 * }
 */
export interface TracerContext extends TracerView {
  /** The trace buffer behind `trace` and `trace_pipe` (ftrace's ring buffer, per CPU). */
  readonly buffer: TraceBuffer;
  /** The tool's arguments (e.g. function names), empty when none were given. */
  readonly args: readonly string[];
}
