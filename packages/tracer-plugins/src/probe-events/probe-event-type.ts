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

/** `seq_print_ip_sym()`: `0` for a null ip, else `sym+0xoff/0xsize`, else hex. */
function printIpSym(ip: bigint, ctx: FormatContext, withOffset: boolean): string {
  if (ip === 0n) return '0';
  const s = ctx.symbolize(ip);
  if (s === undefined) return `0x${ip.toString(16)}`;
  if (withOffset) return s;
  const plus = s.indexOf('+');
  return plus < 0 ? s : s.slice(0, plus);
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
    const ip = view.getBigUint64(COMMON_HEADER_SIZE, true);
    let out =
      this.#def.kind === 'r'
        ? `(${printIpSym(view.getBigUint64(COMMON_HEADER_SIZE + 8, true), ctx, true)} <- ${printIpSym(ip, ctx, false)})`
        : `(${printIpSym(ip, ctx, true)})`;
    for (const a of this.#def.args) {
      const at = this.#argBase + a.offset;
      if (!a.count) {
        out += ` ${a.name}=${printProbeValue(a.type, record, view, at, ctx)}`;
        continue;
      }
      const parts: string[] = [];
      for (let j = 0; j < a.count; j++) parts.push(printProbeValue(a.type, record, view, at + j * a.type.size, ctx));
      out += ` ${a.name}={${parts.join(',')}}`;
    }
    return out;
  }
}
