import type { RingBufferEvent } from '../ring-buffer/ring-buffer-event.js';
import { jsonLine } from '../trace-output/json-line.js';
import { traceFindCmdline } from '../trace-output/trace-find-cmdline.js';
import { KERNEL_STACK_CALLER_OFFSET, KERNEL_STACK_SIZE_OFFSET, TRACE_STACK } from '../triggers/kernel-stack-event.js';
import {
  probeFormatJson,
  probeRecordJson,
  recordHead,
  type SymbolLookup,
  type TraceJsonEvent,
  type TraceJsonFormat,
  type TraceJsonSite,
  traceJsonSite,
} from './probe-record-json.js';
import type { TraceFs } from './trace-fs.js';
import type { TraceKprobeEvent } from './trace-kprobe-event.js';

/**
 * The version of the JSON Lines schema (`schema/trace-json-lines.v2.schema.json`); bumped on any
 * change but a new optional member. 2 added the `stack` line (1 wrote stack entries as `unknown`).
 */
export const TRACE_JSON_VERSION = 2;

/** `type: "header"`: the first line; says what the stream is and which schema version it follows. */
export interface TraceJsonHeader {
  readonly type: 'header';
  readonly format: 'int3-trace';
  readonly version: typeof TRACE_JSON_VERSION;
  /** `virtual`: timestamps are the emulated machine's nanoseconds since boot, not wall-clock time. */
  readonly clock: 'virtual';
  readonly cpus: number;
  /** `buffer_size_kb`: each CPU's ring buffer, in KiB. */
  readonly bufferSizeKb: number;
}

/** `type: "lost"`: records of one CPU overwritten before they were read (the text's `CPU:N [LOST n EVENTS]`). */
export interface TraceJsonLost {
  readonly type: 'lost';
  readonly cpu: number;
  readonly count: number;
  /** Of the first record read after the gap. */
  readonly timestamp: number;
}

/** `type: "unknown"`: a record whose event is no longer defined (the text's `Unknown type N`). */
export interface TraceJsonUnknown {
  readonly type: 'unknown';
  readonly timestamp: number;
  readonly cpu: number;
  readonly pid: number;
  readonly comm: string;
  readonly flags: string;
  readonly id: number;
}

/**
 * `type: "stack"`: a `<stack trace>` entry a `stacktrace` trigger wrote after its event's record (the
 * text's ` => symbol` lines): the callers at the hit, innermost first.
 */
export interface TraceJsonStack {
  readonly type: 'stack';
  readonly timestamp: number;
  readonly cpu: number;
  readonly pid: number;
  readonly comm: string;
  readonly flags: string;
  readonly frames: readonly TraceJsonSite[];
}

/** `type: "end"`: the last line, so a consumer knows the stream is whole. */
export interface TraceJsonEnd {
  readonly type: 'end';
  /** Records written (event, unknown and stack lines). */
  readonly events: number;
  /** Records lost, summed over `lost` lines. */
  readonly lost: number;
}

/** Any line of the stream. */
export type TraceJsonLine =
  | TraceJsonHeader
  | TraceJsonFormat
  | TraceJsonEvent
  | TraceJsonLost
  | TraceJsonUnknown
  | TraceJsonStack
  | TraceJsonEnd;

/**
 * The trace of a tracefs buffer as typed JSON Lines, built from the binary records (never from their
 * text), consuming them as `trace_pipe` does so it can be drained slice by slice while the machine
 * runs: a `header` line first, a `format` line before the first record of each event, one `event`
 * line per record (a `lost` line before it when its CPU lost records), a `stack` line per `<stack
 * trace>` entry, an `end` line last. Every line is one JSON object with a `type`; the schema is
 * `schema/trace-json-lines.v2.schema.json`.
 *
 * @see kernel/trace/trace.c tracing_read_pipe() (the consuming reader)
 * @example
 * const out = new TraceJsonLines(fs);
 * process.stdout.write(out.header());
 * // run a slice, then:
 * process.stdout.write(out.drain());
 * process.stdout.write(out.end());
 */
export class TraceJsonLines {
  readonly #fs: TraceFs;
  /** The event whose `format` line was written, by id. */
  readonly #announced = new Map<number, TraceKprobeEvent>();
  #events = 0;
  #lost = 0;

  constructor(fs: TraceFs) {
    this.#fs = fs;
  }

  /** The `header` line. */
  header(): string {
    return jsonLine(this.headerRecord());
  }

  /** The `header` record. */
  headerRecord(): TraceJsonHeader {
    const buf = this.#fs.buffer;
    return {
      type: 'header',
      format: 'int3-trace',
      version: TRACE_JSON_VERSION,
      clock: 'virtual',
      cpus: buf.nrCpus,
      bufferSizeKb: buf.bufferSizeKb,
    };
  }

  /** Consumes every record in the buffer now and returns their lines (empty when none). */
  drain(): string {
    let out = '';
    this.#consume((line) => {
      out += jsonLine(line);
    });
    return out;
  }

  /** Consumes every record in the buffer now and returns their lines as objects (`format`, `lost`, `event`…). */
  drainRecords(): TraceJsonLine[] {
    const out: TraceJsonLine[] = [];
    this.#consume((line) => out.push(line));
    return out;
  }

  /** The `end` line. */
  end(): string {
    return jsonLine(this.endRecord());
  }

  /** The `end` record. */
  endRecord(): TraceJsonEnd {
    return { type: 'end', events: this.#events, lost: this.#lost };
  }

  #consume(emit: (line: TraceJsonLine) => void): void {
    const fs = this.#fs;
    const comm = (pid: number) => fs.savedCmdlines.get(pid);
    const lookup = (a: bigint) => fs.view.symbols.lookup(a);
    for (let ev = fs.buffer.consume(); ev !== undefined; ev = fs.buffer.consume()) {
      if (ev.lost > 0) {
        this.#lost += ev.lost;
        emit({ type: 'lost', cpu: ev.cpu, count: ev.lost, timestamp: ev.ts });
      }
      this.#events++;
      const pid = ev.view.getInt32(ev.offset + 4, true);
      const id = ev.view.getUint16(ev.offset, true);
      if (id === TRACE_STACK) {
        emit(stack(ev, traceFindCmdline(pid, comm), lookup));
        continue;
      }
      const event = fs.kprobeEvents.eventById(id);
      if (event === undefined || event.definitions.length === 0) {
        emit(unknown(ev, id, traceFindCmdline(pid, comm)));
        continue;
      }
      if (this.#announced.get(id) !== event) {
        this.#announced.set(id, event);
        emit(probeFormatJson(event));
      }
      emit(probeRecordJson(ev, event, traceFindCmdline(pid, comm), lookup));
    }
  }
}

function unknown(ev: RingBufferEvent, id: number, comm: string): TraceJsonUnknown {
  return { type: 'unknown', ...recordHead(ev, comm), id };
}

function stack(ev: RingBufferEvent, comm: string, lookup: SymbolLookup): TraceJsonStack {
  const v = ev.view;
  const o = ev.offset;
  const n = v.getInt32(o + KERNEL_STACK_SIZE_OFFSET, true);
  const frames: TraceJsonSite[] = [];
  for (let i = 0; i < n && KERNEL_STACK_CALLER_OFFSET + 8 * i + 8 <= ev.length; i++) {
    frames.push(traceJsonSite(v.getBigUint64(o + KERNEL_STACK_CALLER_OFFSET + 8 * i, true), lookup));
  }
  return { type: 'stack', ...recordHead(ev, comm), frames };
}
