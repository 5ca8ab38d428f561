import type { FormatContext, TraceEventType } from '../events/trace-event-type.js';
import type { RingBufferEvent } from '../ring-buffer/ring-buffer-event.js';
import type { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import { type CommLookup, traceFindCmdline } from './trace-find-cmdline.js';
import { printTraceHeader } from './trace-header.js';
import { tracePrintContext } from './trace-print-context.js';

/** What formatting needs from the rest of the tracer. */
export interface TraceOutputOptions {
  /** The event type whose id is `common_type`. */
  readonly eventType: (id: number) => TraceEventType | undefined;
  /** `saved_cmdlines`. */
  readonly comm?: CommLookup;
  /** Symbolization and other system lookups for `formatBody`. */
  readonly formatContext: FormatContext;
}

/**
 * Turns binary records into ftrace text only when read, as the kernel does: the `trace` file (header
 * plus every record, non-consuming) and `trace_pipe` (consuming). A record whose CPU lost events
 * before it is preceded by `CPU:<n> [LOST <count> EVENTS]`.
 *
 * @see kernel/trace/trace.c print_trace_line(), print_trace_fmt(), s_show(), tracing_read_pipe()
 * @example
 * const out = new TraceFormatter({ eventType: (id) => registry.get(id), comm, formatContext });
 * process.stdout.write(out.readTrace(buffer));
 */
export class TraceFormatter {
  constructor(private readonly options: TraceOutputOptions) {}

  /** One trace line without its newline: the context prefix, `<event>: ` and the body. */
  formatRecord(ev: RingBufferEvent): string {
    const v = ev.view;
    const o = ev.offset;
    const id = v.getUint16(o, true);
    const pid = v.getInt32(o + 4, true);
    const prefix = tracePrintContext({
      comm: traceFindCmdline(pid, this.options.comm),
      pid,
      cpu: ev.cpu,
      flags: v.getUint8(o + 2),
      preemptCount: v.getUint8(o + 3),
      ts: ev.ts,
    });
    const type = this.options.eventType(id);
    if (type === undefined) return `${prefix}Unknown type ${id}`;
    return `${prefix}${type.name}: ${type.formatBody(ev.data(), this.options.formatContext)}`;
  }

  /** The lines for one read record: a lost-events notice if any, then the record, each ending in `\n`. */
  formatEntry(ev: RingBufferEvent): string {
    const lost = ev.lost > 0 ? `CPU:${ev.cpu} [LOST ${ev.lost} EVENTS]\n` : '';
    return `${lost}${this.formatRecord(ev)}\n`;
  }

  /** The whole `trace` file: header then every record merged by time, leaving the buffer intact. */
  readTrace(buffer: TraceBuffer, tracer = 'nop'): string {
    let out = printTraceHeader({
      entries: buffer.entries,
      written: buffer.entriesWritten,
      cpus: buffer.nrCpus,
      tracer,
    });
    const it = buffer.iterator();
    for (let ev = it.nextEntry(); ev !== undefined; ev = it.nextEntry()) out += this.formatEntry(ev);
    return out;
  }

  /** Reads `trace_pipe`: consumes up to `max` records and returns their lines (empty when none). */
  readPipe(buffer: TraceBuffer, max = Number.POSITIVE_INFINITY): string {
    let out = '';
    for (let n = 0; n < max; n++) {
      const ev = buffer.consume();
      if (ev === undefined) break;
      out += this.formatEntry(ev);
    }
    return out;
  }
}
