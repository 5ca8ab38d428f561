import {
  COMMON_HEADER_SIZE,
  type FieldDescriptor,
  type FormatContext,
  type TraceEventType,
} from '../events/trace-event-type.js';
import { printProbeValue } from './print-probe-value.js';
import type { ProbeDefinition } from './probe-definition.js';
import { probeEventFields } from './probe-fields.js';
import { probeHeadSize } from './probe-recorder.js';
import { setPrintFmt } from './set-print-fmt.js';

/** A remembered `seq_print_ip_sym()` result for one address. */
interface SymEntry {
  hi: number;
  withOffset: string;
  bare: string;
}

/** `seq_print_ip_sym()` text of a non-null ip: `sym+0xoff/0xsize` (or `sym` alone), else hex. */
function symEntry(ip: bigint, hi: number, ctx: FormatContext): SymEntry {
  const s = ctx.symbolize(ip);
  if (s === undefined) {
    const hex = `0x${ip.toString(16)}`;
    return { hi, withOffset: hex, bare: hex };
  }
  const plus = s.indexOf('+');
  return { hi, withOffset: s, bare: plus < 0 ? s : s.slice(0, plus) };
}

/**
 * A kprobe event as the tracer sees it: fields, `print fmt`, and trace-line bodies
 * `(sym+0xoff/0xsize) name=value ...` or, for return probes, `(caller+0xoff/0xsize <- func) ...`.
 * All probes of a multiprobe event share its first definition's layout.
 *
 * @see kernel/trace/trace_kprobe.c print_kprobe_event(), print_kretprobe_event()
 * @see kernel/trace/trace_probe.c print_probe_args()
 */
export class ProbeEventType implements TraceEventType {
  readonly system: string;
  readonly name: string;
  readonly fields: readonly FieldDescriptor[];
  readonly printFmt: string;
  readonly #def: ProbeDefinition;
  readonly #argBase: number;
  /** Symbols of the ips printed under one caching format context, by the ip's low half. */
  readonly #symbols = new Map<number, SymEntry>();
  #symbolsCtx: FormatContext | undefined;

  constructor(
    readonly id: number,
    def: ProbeDefinition,
  ) {
    this.#def = def;
    this.system = def.group;
    this.name = def.event;
    this.fields = probeEventFields(def);
    this.printFmt = setPrintFmt(def);
    this.#argBase = COMMON_HEADER_SIZE + probeHeadSize(def.kind);
  }

  formatBody(record: Uint8Array, ctx: FormatContext): string {
    const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
    return this.formatBodyAt(record, view, 0, record.length, ctx);
  }

  formatBodyAt(bytes: Uint8Array, view: DataView, offset: number, length: number, ctx: FormatContext): string {
    const head = offset + COMMON_HEADER_SIZE;
    let out =
      this.#def.kind === 'r'
        ? `(${this.#printIpSym(view, head + 8, ctx, true)} <- ${this.#printIpSym(view, head, ctx, false)})`
        : `(${this.#printIpSym(view, head, ctx, true)})`;
    const end = offset + length;
    const base = offset + this.#argBase;
    for (const a of this.#def.args) {
      const at = base + a.offset;
      if (!a.count) {
        out += ` ${a.name}=${printProbeValue(a.type, bytes, view, at, offset, end, ctx)}`;
        continue;
      }
      let list = '';
      for (let j = 0; j < a.count; j++) {
        list += `${j ? ',' : ''}${printProbeValue(a.type, bytes, view, at + j * a.type.size, offset, end, ctx)}`;
      }
      out += ` ${a.name}={${list}}`;
    }
    return out;
  }

  /** `seq_print_ip_sym()` of the u64 at `at`: `0` for a null ip; remembered per caching context. */
  #printIpSym(view: DataView, at: number, ctx: FormatContext, withOffset: boolean): string {
    const lo = view.getUint32(at, true);
    const hi = view.getUint32(at + 4, true);
    if (lo === 0 && hi === 0) return '0';
    if (!ctx.cacheSymbols) {
      const e = symEntry(view.getBigUint64(at, true), hi, ctx);
      return withOffset ? e.withOffset : e.bare;
    }
    if (this.#symbolsCtx !== ctx) {
      this.#symbols.clear();
      this.#symbolsCtx = ctx;
    }
    let e = this.#symbols.get(lo);
    if (e === undefined || e.hi !== hi) {
      e = symEntry(view.getBigUint64(at, true), hi, ctx);
      this.#symbols.set(lo, e);
    }
    return withOffset ? e.withOffset : e.bare;
  }
}
