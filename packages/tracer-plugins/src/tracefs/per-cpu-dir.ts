import type { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import type { TraceFormatter } from '../trace-output/trace-formatter.js';
import { formatTraceTimestamp } from '../trace-output/trace-print-context.js';
import { dir, file, streamFile, type TraceFsNode } from './trace-fs-node.js';

/**
 * The `stats` file of one CPU's buffer.
 *
 * @see kernel/trace/trace.c tracing_stats_read()
 */
export function perCpuStats(buffer: TraceBuffer, cpu: number): string {
  const s = buffer.cpu(cpu).stats();
  return [
    `entries: ${s.entries}`,
    `overrun: ${s.overrun}`,
    `commit overrun: ${s.commitOverrun}`,
    `bytes: ${s.bytes}`,
    `oldest event ts: ${formatTraceTimestamp(s.oldestEventTs)}`,
    `now ts: ${formatTraceTimestamp(s.nowTs)}`,
    `dropped events: ${s.droppedEvents}`,
    `read events: ${s.readEvents}`,
    '',
  ].join('\n');
}

/**
 * The `per_cpu/` tree: `per_cpu/cpu<N>/{trace,trace_pipe,stats}`, each reading only CPU N's buffer.
 * `parts` is the path below `per_cpu/`. Writing `trace` (`echo > per_cpu/cpu<N>/trace`) clears only
 * that CPU.
 *
 * @see kernel/trace/trace.c tracing_init_tracefs_percpu()
 */
export function perCpuNode(
  buffer: TraceBuffer,
  formatter: TraceFormatter,
  parts: readonly string[],
): TraceFsNode | undefined {
  const [name, leaf, extra] = parts;
  if (name === undefined) return dir(() => Array.from({ length: buffer.nrCpus }, (_, i) => `cpu${i}`));
  const m = /^cpu(0|[1-9]\d*)$/.exec(name);
  const cpu = m ? Number(m[1]) : -1;
  if (cpu < 0 || cpu >= buffer.nrCpus || extra !== undefined) return undefined;
  switch (leaf) {
    case undefined:
      return dir(() => ['stats', 'trace', 'trace_pipe']);
    case 'trace':
      return streamFile(
        () => formatter.traceChunks(buffer, { cpu }),
        (_t, append) => {
          if (!append) buffer.cpu(cpu).reset();
        },
      );
    case 'trace_pipe':
      return streamFile(() => formatter.pipeChunks(buffer, { cpu }));
    case 'stats':
      return file(() => perCpuStats(buffer, cpu));
    default:
      return undefined;
  }
}
