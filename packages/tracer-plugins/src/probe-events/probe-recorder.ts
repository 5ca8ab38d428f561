import { COMMON_HEADER_SIZE } from '../events/trace-event-type.js';
import type { FetchContext } from './fetch-context.js';
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
 * Builds binary records for one probe of an event: the common header, the probe head, each argument at
 * its offset, and strings in the dynamic area after the fixed part. Reuses one scratch buffer; each
 * record is one copy of it.
 *
 * @see kernel/trace/trace_kprobe.c __kprobe_trace_func(), __kretprobe_trace_func()
 * @see kernel/trace/trace_probe_tmpl.h store_trace_args()
 * @example
 * const rec = new ProbeRecorder(def, 1234).record(ctx, { pid: 1, flags: 0, preemptCount: 0, ip: 0xffffffff81001000n });
 */
export class ProbeRecorder {
  readonly #def: ProbeDefinition;
  readonly #eventId: number;
  readonly #argBase: number;
  readonly #fixed: number;
  readonly #cur: RecordCursor;

  constructor(def: ProbeDefinition, eventId: number) {
    this.#def = def;
    this.#eventId = eventId;
    this.#argBase = COMMON_HEADER_SIZE + probeHeadSize(def.kind);
    this.#fixed = this.#argBase + def.size;
    const buf = new Uint8Array(Math.max(256, this.#fixed * 2));
    this.#cur = { buf, view: new DataView(buf.buffer), dyn: 0 };
  }

  /** Evaluates every argument against `ctx` and returns the record. */
  record(ctx: FetchContext, hit: ProbeHit): Uint8Array {
    const cur = this.#cur;
    cur.buf.fill(0, 0, this.#fixed);
    cur.dyn = this.#fixed;
    const v = cur.view;
    v.setUint16(0, this.#eventId, true);
    v.setUint8(2, hit.flags);
    v.setUint8(3, hit.preemptCount);
    v.setInt32(4, hit.pid, true);
    v.setBigUint64(COMMON_HEADER_SIZE, hit.ip, true);
    if (this.#def.kind === 'r') v.setBigUint64(COMMON_HEADER_SIZE + 8, hit.retIp ?? 0n, true);
    const args = this.#def.args;
    for (let i = 0; i < args.length; i++) processFetchInsn(args[i].code, ctx, cur, this.#argBase + args[i].offset);
    // A view of the recorder's scratch buffer, valid until the next record(): callers copy it into
    // the ring buffer at once, so no allocation per hit.
    return cur.buf.subarray(0, cur.dyn);
  }
}
