import type { TraceFs } from '../tracefs/trace-fs.js';
import { ChromeTraceBuilder, type ChromeTraceOptions } from './chrome-trace-builder.js';
import type { ChromeTraceDocument } from './chrome-trace-event.js';
import { chromeTraceHit, returnedFunction } from './chrome-trace-hit.js';

/**
 * The Chrome Trace Event document of the records in a tracefs buffer (non-consuming, every CPU merged
 * by time): a kprobe event at a function's entry and a kretprobe event on the same function pair up
 * per task as `B`/`E` (or `X` with `complete`), other kprobe events are instants named after their
 * event, and returns without an entry are instants too; records lost before a record of a CPU are an
 * instant on that CPU's track. See {@link ChromeTraceBuilder} for tracks.
 *
 * @see https://perfetto.dev/docs/getting-started/other-formats (JSON trace format)
 * @example
 * fs.write('kprobe_events', 'p:in vfs_read count=%dx\nr:out vfs_read ret=$retval');
 * fs.write('events/kprobes/enable', '1');
 * m.run();
 * const doc = chromeTraceDocument(fs, { complete: true });
 */
export function chromeTraceDocument(fs: TraceFs, options: ChromeTraceOptions = {}): ChromeTraceDocument {
  // Pass 1: the functions some kretprobe event returned from; kprobes at their entry pair with those.
  const returning = new Set<string>();
  const it1 = fs.buffer.iterator();
  for (let ev = it1.nextEntry(); ev !== undefined; ev = it1.nextEntry()) {
    const event = fs.kprobeEvents.eventById(ev.view.getUint16(ev.offset, true));
    if (event?.definitions[0]?.kind === 'r') returning.add(returnedFunction(fs, ev, event));
  }
  // Pass 2: every record as an entry, a return or an instant.
  const builder = new ChromeTraceBuilder(options);
  const it = fs.buffer.iterator();
  for (let ev = it.nextEntry(); ev !== undefined; ev = it.nextEntry()) {
    if (ev.lost > 0) builder.lost(ev.cpu, ev.lost, ev.ts);
    const event = fs.kprobeEvents.eventById(ev.view.getUint16(ev.offset, true));
    if (event !== undefined) builder.add(chromeTraceHit(fs, ev, event, returning));
  }
  return builder.document();
}

/**
 * {@link chromeTraceDocument} as JSON text (one line and a newline), ready for a `.json` file that
 * Perfetto UI opens. For the CLI: no tracer plugin instance is needed.
 *
 * @example
 * writeFileSync('trace.json', exportChromeTrace(traceFs, { complete: false }));
 */
export function exportChromeTrace(fs: TraceFs, options: ChromeTraceOptions = {}): string {
  return `${JSON.stringify(chromeTraceDocument(fs, options))}\n`;
}
