import type { KsymLocation } from '@int3/kernel';
import { COMMON_HEADER_SIZE } from '../events/trace-event-type.js';
import { DEFAULT_FETCH_TYPE } from '../probe-events/fetch-type.js';
import type { ProbeArg, ProbeDefinition } from '../probe-events/probe-definition.js';
import { probeHeadSize } from '../probe-events/probe-recorder.js';
import type { RingBufferEvent } from '../ring-buffer/ring-buffer-event.js';
import { tracePrintLatFmt } from '../trace-output/lat-fmt.js';
import { surrogateEscapeDecode } from '../trace-output/surrogate-escape.js';
import type { TraceKprobeEvent } from './trace-kprobe-event.js';

/** A code address: `0x` hex, and the symbol holding it (null outside every symbol). */
export interface TraceJsonSite {
  readonly address: string;
  readonly symbol: string | null;
  readonly offset: number | null;
  /** The module of a module symbol. */
  readonly module?: string;
}

/**
 * One fetched value, typed after its fetch type: integers of at most 32 bits (`u8`..`u32`, `s8`..`s32`,
 * `x8`..`x32`, `char`, bitfields in such containers) as numbers; 64-bit integers (`u64`, `s64`, `x64`,
 * bitfields in a u64) as decimal strings, never rounded; `symbol` as a site; strings as strings
 * (invalid UTF-8 surrogate-escaped), null when the fetch faulted; arrays element by element.
 */
export type TraceJsonValue = number | string | null | TraceJsonSite | readonly TraceJsonValue[];

/** `type: "event"`: one kprobe or kretprobe hit. */
export interface TraceJsonEvent {
  readonly type: 'event';
  /** Virtual nanoseconds since boot, an integer. */
  readonly timestamp: number;
  readonly cpu: number;
  readonly pid: number;
  readonly comm: string;
  /** The latency-format column: irqs-off, need-resched, hardirq/softirq, preempt and migrate depth. */
  readonly flags: string;
  readonly id: number;
  readonly group: string;
  readonly event: string;
  /** `kprobe` (`p:`) or `kretprobe` (`r:`). */
  readonly kind: 'kprobe' | 'kretprobe';
  /** Where the kprobe hit (`__probe_ip`), or the function a kretprobe returned from (`__probe_func`). */
  readonly probe: TraceJsonSite;
  /** A kretprobe's return address in the caller (`__probe_ret_ip`). */
  readonly caller?: TraceJsonSite;
  /** The fetch arguments by name, in definition order. */
  readonly args: Readonly<Record<string, TraceJsonValue>>;
}

/** `type: "format"`: an event's layout, before its first record (as the `format` file describes it). */
export interface TraceJsonFormat {
  readonly type: 'format';
  readonly id: number;
  readonly group: string;
  readonly event: string;
  readonly kind: 'kprobe' | 'kretprobe';
  /** Each argument's name, fetch type as written (`x64` when omitted) and array length (0: scalar). */
  readonly args: readonly { readonly name: string; readonly type: string; readonly count: number }[];
}

/** The members every record's line starts with (`event`, `unknown`, `stack`), in this order. */
export interface TraceJsonRecordHead {
  readonly timestamp: number;
  readonly cpu: number;
  readonly pid: number;
  readonly comm: string;
  readonly flags: string;
}

/** A record's head: its timestamp and CPU, `common_pid`, the task's comm and the latency flags. */
export function recordHead(ev: RingBufferEvent, comm: string): TraceJsonRecordHead {
  const v = ev.view;
  const o = ev.offset;
  return {
    timestamp: ev.ts,
    cpu: ev.cpu,
    pid: v.getInt32(o + 4, true),
    comm,
    flags: tracePrintLatFmt(v.getUint8(o + 2), v.getUint8(o + 3)),
  };
}

/** Symbol lookups the JSON records need. */
export type SymbolLookup = (address: bigint) => KsymLocation | undefined;

/** A site for an address (`0x0` has no symbol). */
export function traceJsonSite(address: bigint, lookup: SymbolLookup): TraceJsonSite {
  const loc = address === 0n ? undefined : lookup(address);
  const hex = `0x${address.toString(16)}`;
  if (loc === undefined) return { address: hex, symbol: null, offset: null };
  return {
    address: hex,
    symbol: loc.sym.name,
    offset: loc.offset,
    ...(loc.sym.module ? { module: loc.sym.module } : {}),
  };
}

/** The `format` record of an event (its first definition's layout, which every probe of it shares). */
export function probeFormatJson(event: TraceKprobeEvent): TraceJsonFormat {
  const def = event.definitions[0];
  return {
    type: 'format',
    id: event.id,
    group: event.group,
    event: event.name,
    kind: def?.kind === 'r' ? 'kretprobe' : 'kprobe',
    args: (def?.args ?? []).map((a) => ({ name: a.name, type: a.typeText ?? DEFAULT_FETCH_TYPE, count: a.count })),
  };
}

/**
 * A kprobe event's record as a typed JSON object, read from the binary record itself (never from its
 * text): the common header, the probe head and each argument at its offset.
 *
 * @see kernel/trace/trace_kprobe.c print_kprobe_event() (the text form of the same record)
 */
export function probeRecordJson(
  ev: RingBufferEvent,
  event: TraceKprobeEvent,
  comm: string,
  lookup: SymbolLookup,
): TraceJsonEvent {
  const v = ev.view;
  const o = ev.offset;
  const def = event.definitions[0] as ProbeDefinition;
  const head = o + COMMON_HEADER_SIZE;
  const ret = def.kind === 'r';
  const args: Record<string, TraceJsonValue> = {};
  const base = head + probeHeadSize(def.kind);
  for (const a of def.args) args[a.name] = argValue(ev, a, base + a.offset, lookup);
  return {
    type: 'event',
    ...recordHead(ev, comm),
    id: event.id,
    group: event.group,
    event: event.name,
    kind: ret ? 'kretprobe' : 'kprobe',
    probe: traceJsonSite(v.getBigUint64(head, true), lookup),
    ...(ret ? { caller: traceJsonSite(v.getBigUint64(head + 8, true), lookup) } : {}),
    args,
  };
}

function argValue(ev: RingBufferEvent, a: ProbeArg, at: number, lookup: SymbolLookup): TraceJsonValue {
  if (!a.count) return scalar(ev, a, at, lookup);
  const list: TraceJsonValue[] = [];
  for (let j = 0; j < a.count; j++) list.push(scalar(ev, a, at + j * a.type.size, lookup));
  return list;
}

function scalar(ev: RingBufferEvent, a: ProbeArg, at: number, lookup: SymbolLookup): TraceJsonValue {
  const v = ev.view;
  const t = a.type;
  if (t.isString) {
    const loc = v.getUint32(at, true);
    const len = loc >>> 16;
    if (len === 0) return null; // The fetch faulted: the text prints (fault).
    const start = ev.offset + (loc & 0xffff);
    const limit = Math.min(ev.offset + ev.length, start + len);
    let stop = start;
    while (stop < limit && ev.bytes[stop] !== 0) stop++;
    return surrogateEscapeDecode(ev.bytes, start, stop);
  }
  if (t.print === 'symbol') return traceJsonSite(v.getBigUint64(at, true), lookup);
  switch (t.size) {
    case 1:
      return t.isSigned ? v.getInt8(at) : v.getUint8(at);
    case 2:
      return t.isSigned ? v.getInt16(at, true) : v.getUint16(at, true);
    case 4:
      return t.isSigned ? v.getInt32(at, true) : v.getUint32(at, true);
    default:
      return (t.isSigned ? v.getBigInt64(at, true) : v.getBigUint64(at, true)).toString();
  }
}
