import { COMMON_HEADER_SIZE } from '../events/trace-event-type.js';
import type { FetchContext } from './fetch-context.js';
import { fetchContextSource } from './fetch-context-source.js';
import type { FetchSource } from './fetch-source.js';
import { compileFetchSteps, type FetchStep } from './fetch-step.js';
import type { ProbeDefinition } from './probe-definition.js';
import { processFetchInsn, type RecordCursor } from './process-fetch-insn.js';

/** The common header values and probe addresses of one hit. */
export interface ProbeHit {
  readonly pid: number;
  readonly flags: number;
  readonly preemptCount: number;
  /** kprobe: the probed address (`__probe_ip`). kretprobe: the probed function (`__probe_func`). */
  readonly ip: bigint;
  /** kretprobe: the return address (`__probe_ret_ip`). */
  readonly retIp?: bigint;
}

/** Bytes of the probe head after the common header: `ip`, or `func` + `ret_ip`. */
export function probeHeadSize(kind: 'p' | 'r'): number {
  return kind === 'r' ? 16 : 8;
}

/**
 * Builds binary records for one probe of an event in place, the way the kernel's trace functions do:
 * measure the dynamic data ({@link dataSize}), reserve `fixedSize + dataSize` bytes in the ring buffer,
 * then {@link store} the common header, the probe head, each argument at its offset and the strings
 * after the fixed part straight into the reservation. Nothing is allocated per hit.
 *
 * @see kernel/trace/trace_kprobe.c __kprobe_trace_func(), __kretprobe_trace_func()
 * @see kernel/trace/trace_probe_tmpl.h __get_data_size(), store_trace_args()
 * @example
 * const rec = new ProbeRecorder(def, 1234);
 * const ev = buffer.reserve(cpu, rec.fixedSize + rec.dataSize(src));
 * if (ev) { rec.store(src, hit, ev.bytes, ev.view, ev.offset); buffer.commit(cpu); }
 */
export class ProbeRecorder {
  /** Bytes of the header, probe head and fixed argument fields. */
  readonly fixedSize: number;
  readonly #def: ProbeDefinition;
  readonly #eventId: number;
  readonly #steps: readonly (readonly FetchStep[])[];
  readonly #dests: readonly number[];
  /** Indexes of the arguments that store strings (the only ones with dynamic data). */
  readonly #stringArgs: readonly number[];
  readonly #cur: RecordCursor;
  #scratch = new Uint8Array(256);

  constructor(def: ProbeDefinition, eventId: number) {
    this.#def = def;
    this.#eventId = eventId;
    const argBase = COMMON_HEADER_SIZE + probeHeadSize(def.kind);
    this.fixedSize = argBase + def.size;
    this.#steps = def.args.map((a) => compileFetchSteps(a.code));
    this.#dests = def.args.map((a) => argBase + a.offset);
    this.#stringArgs = def.args.flatMap((a, i) => (a.type.isString ? [i] : []));
    const buf = this.#scratch;
    this.#cur = { buf, view: new DataView(buf.buffer), base: 0, dyn: 0, measure: false };
  }

  /** Bytes the hit's strings need after the fixed part. @see __get_data_size() */
  dataSize(src: FetchSource): number {
    const strings = this.#stringArgs;
    if (strings.length === 0) return 0;
    const cur = this.#cur;
    cur.measure = true;
    cur.dyn = 0;
    for (let i = 0; i < strings.length; i++) processFetchInsn(this.#steps[strings[i]], src, cur, 0);
    cur.measure = false;
    return cur.dyn;
  }

  /**
   * Writes the record at `buf[base…]`, which must have room for `fixedSize + dataSize(src)` bytes.
   *
   * @see kernel/trace/trace_probe_tmpl.h store_trace_args()
   */
  store(src: FetchSource, hit: ProbeHit, buf: Uint8Array, view: DataView, base: number): void {
    buf.fill(0, base, base + this.fixedSize);
    view.setUint16(base, this.#eventId, true);
    buf[base + 2] = hit.flags;
    buf[base + 3] = hit.preemptCount;
    view.setInt32(base + 4, hit.pid, true);
    view.setBigUint64(base + COMMON_HEADER_SIZE, hit.ip, true);
    if (this.#def.kind === 'r') view.setBigUint64(base + COMMON_HEADER_SIZE + 8, hit.retIp ?? 0n, true);
    const cur = this.#cur;
    cur.buf = buf;
    cur.view = view;
    cur.base = base;
    cur.dyn = base + this.fixedSize;
    const steps = this.#steps;
    const dests = this.#dests;
    for (let i = 0; i < steps.length; i++) processFetchInsn(steps[i], src, cur, base + dests[i]);
  }

  /**
   * Evaluates every argument against `ctx` and returns the record: a view of a scratch buffer, valid
   * until the next call. For tests and tools; the tracer writes into the ring buffer with {@link store}.
   */
  record(ctx: FetchContext, hit: ProbeHit): Uint8Array {
    const src = fetchContextSource(ctx);
    const length = this.fixedSize + this.dataSize(src);
    if (this.#scratch.length < length) this.#scratch = new Uint8Array(length * 2);
    const buf = this.#scratch;
    this.store(src, hit, buf, new DataView(buf.buffer), 0);
    return buf.subarray(0, length);
  }
}
