import type { FormatContext, TraceEventType } from '../events/trace-event-type.js';
import type { RingBufferEvent } from '../ring-buffer/ring-buffer-event.js';
import type { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import { escapeControls } from './escape-control.js';
import { tracePrintLatFmt } from './lat-fmt.js';
import { type CommLookup, traceFindCmdline } from './trace-find-cmdline.js';
import { printTraceHeader } from './trace-header.js';
import { formatTraceTimestamp } from './trace-print-context.js';

/** What formatting needs from the rest of the tracer. */
export interface TraceOutputOptions {
  /** The event type whose id is `common_type`. */
  readonly eventType: (id: number) => TraceEventType | undefined;
  /** `saved_cmdlines`. */
  readonly comm?: CommLookup;
  /** Symbolization and other system lookups for `formatBody`. */
  readonly formatContext: FormatContext;
}

/** Which records a read covers. */
export interface TraceReadOptions {
  /** Only this CPU's buffer (`per_cpu/cpu<N>/…`); default every CPU merged by time. */
  readonly cpu?: number | undefined;
  /** `trace_pipe`: consume at most this many records; default all. */
  readonly max?: number | undefined;
  /** `trace`: the tracer named in the header; default `nop`. */
  readonly tracer?: string | undefined;
}

/** Text handed out per chunk of a streamed read (the kernel's seq_file hands out pages). */
const CHUNK_CHARS = 64 * 1024;

/** Joins the lines (newline-terminated) into one flat chunk and empties the list: lines die young. */
function flush(lines: string[]): string {
  const chunk = `${lines.join('\n')}\n`;
  lines.length = 0;
  return chunk;
}

/** The `comm-pid` column of one pid, remembered while its comm stays the same. */
interface PidColumn {
  comm: string;
  text: string;
}

/**
 * Turns binary records into ftrace text only when read, as the kernel does: the `trace` file (header
 * plus every record, non-consuming) and `trace_pipe` (consuming), whole or as a stream of chunks so a
 * huge buffer never becomes one giant string. A record whose CPU lost events before it is preceded by
 * `CPU:<n> [LOST <count> EVENTS]`. The line prefix is assembled from remembered per-pid, per-CPU and
 * per-flags pieces; symbols are looked up once per address per read.
 *
 * @see kernel/trace/trace.c print_trace_line(), print_trace_fmt(), s_show(), tracing_read_pipe()
 * @example
 * const out = new TraceFormatter({ eventType: (id) => registry.get(id), comm, formatContext });
 * for (const chunk of out.traceChunks(buffer)) process.stdout.write(chunk);
 */
export class TraceFormatter {
  readonly #pids = new Map<number, PidColumn>();
  readonly #cpus: string[] = [];
  readonly #latFmt = new Map<number, string>();

  constructor(private readonly options: TraceOutputOptions) {}

  /** One trace line without its newline: the context prefix, `<event>: ` and the body. */
  formatRecord(ev: RingBufferEvent, ctx: FormatContext = this.options.formatContext): string {
    const v = ev.view;
    const o = ev.offset;
    const id = v.getUint16(o, true);
    const prefix = `${this.#pidColumn(v.getInt32(o + 4, true))} ${this.#cpuColumn(ev.cpu)} ${this.#latColumn(v.getUint8(o + 2), v.getUint8(o + 3))} ${formatTraceTimestamp(ev.ts)}: `;
    const type = this.options.eventType(id);
    if (type === undefined) return `${prefix}Unknown type ${id}`;
    const body =
      type.formatBodyAt !== undefined
        ? type.formatBodyAt(ev.bytes, v, o, ev.length, ctx)
        : type.formatBody(ev.data(), ctx);
    // ftrace's own entries (a `<stack trace>`) print no event name, as their print functions write it all.
    return type.system === 'ftrace' ? `${prefix}${body}` : `${prefix}${type.name}: ${body}`;
  }

  /** The lines for one read record: a lost-events notice if any, then the record, each ending in `\n`. */
  formatEntry(ev: RingBufferEvent, ctx: FormatContext = this.options.formatContext): string {
    const line = `${this.formatRecord(ev, ctx)}\n`;
    return ev.lost > 0 ? `CPU:${ev.cpu} [LOST ${ev.lost} EVENTS]\n${line}` : line;
  }

  /** The whole `trace` file: header then every record merged by time, leaving the buffer intact. */
  readTrace(buffer: TraceBuffer, tracer = 'nop', cpu?: number): string {
    return [...this.traceChunks(buffer, { tracer, cpu })].join('');
  }

  /** Reads `trace_pipe`: consumes up to `max` records and returns their lines (empty when none). */
  readPipe(buffer: TraceBuffer, max = Number.POSITIVE_INFINITY, cpu?: number): string {
    return [...this.pipeChunks(buffer, { max, cpu })].join('');
  }

  /**
   * The `trace` file as a stream: the header, then chunks of whole lines. Records written while the
   * stream is open appear if the reader has not passed them yet, as with the kernel's iterator.
   *
   * @see kernel/trace/trace.c s_start(), s_next(), s_show()
   */
  *traceChunks(buffer: TraceBuffer, options: TraceReadOptions = {}): Generator<string, void, undefined> {
    yield printTraceHeader({
      entries: buffer.entries,
      written: buffer.entriesWritten,
      cpus: buffer.nrCpus,
      tracer: options.tracer,
    });
    const it = buffer.iterator(options.cpu);
    yield* this.#lineChunks(() => it.nextEntry());
  }

  /** `trace_pipe` as a stream: consumes up to `max` records, in chunks of whole lines; nothing when empty. */
  *pipeChunks(buffer: TraceBuffer, options: TraceReadOptions = {}): Generator<string, void, undefined> {
    const max = options.max ?? Number.POSITIVE_INFINITY;
    let n = 0;
    yield* this.#lineChunks(() => (n++ < max ? buffer.consume(options.cpu) : undefined));
  }

  /** The lines of the records `next` gives until it gives none, in chunks of about CHUNK_CHARS. */
  *#lineChunks(next: () => RingBufferEvent | undefined): Generator<string, void, undefined> {
    const ctx = this.#readContext();
    const lines: string[] = [];
    let chars = 0;
    for (let ev = next(); ev !== undefined; ev = next()) {
      if (ev.lost > 0) lines.push(`CPU:${ev.cpu} [LOST ${ev.lost} EVENTS]`);
      const line = this.formatRecord(ev, ctx);
      lines.push(line);
      chars += line.length;
      if (chars >= CHUNK_CHARS) {
        yield flush(lines);
        chars = 0;
      }
    }
    if (lines.length > 0) yield flush(lines);
  }

  /** A format context for one read: symbols cannot change during it, so event types may cache them. */
  #readContext(): FormatContext {
    const base = this.options.formatContext;
    return { symbolize: (a) => base.symbolize(a), cacheSymbols: true };
  }

  /** `"%16s-%-7d"`: the comm (the guest's, escaped) right-aligned in 16, the pid left-aligned in 7. */
  #pidColumn(pid: number): string {
    const comm = traceFindCmdline(pid, this.options.comm);
    let col = this.#pids.get(pid);
    if (col === undefined || col.comm !== comm) {
      col = { comm, text: `${escapeControls(comm).padStart(16)}-${String(pid).padEnd(7)}` };
      this.#pids.set(pid, col);
    }
    return col.text;
  }

  /** `"[%03d]"`. */
  #cpuColumn(cpu: number): string {
    let col = this.#cpus[cpu];
    if (col === undefined) {
      col = `[${String(cpu).padStart(3, '0')}]`;
      this.#cpus[cpu] = col;
    }
    return col;
  }

  #latColumn(flags: number, preemptCount: number): string {
    const key = (flags << 8) | preemptCount;
    let col = this.#latFmt.get(key);
    if (col === undefined) {
      col = tracePrintLatFmt(flags, preemptCount);
      this.#latFmt.set(key, col);
    }
    return col;
  }
}
