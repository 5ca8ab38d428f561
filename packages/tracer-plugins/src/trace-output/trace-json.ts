import type { RingBufferEvent } from '../ring-buffer/ring-buffer-event.js';
import type { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import { type DecodedValue, decodeField } from './decode-field.js';
import { traceFindCmdline } from './trace-find-cmdline.js';
import type { TraceOutputOptions } from './trace-formatter.js';

/** One record as JSON. `ts` is in nanoseconds; `event` is `<system>:<name>` (`unknown:<id>` if unregistered). */
export interface TraceJsonRecord {
  readonly ts: number;
  readonly cpu: number;
  readonly pid: number;
  readonly comm: string;
  readonly event: string;
  /** The event's own fields (not the common header), decoded per their descriptors. */
  readonly fields: Record<string, DecodedValue>;
}

/**
 * Decodes one record for JSON export: integers as numbers when safe, else decimal strings; strings
 * as strings; arrays as arrays.
 *
 * @see tools/tracing (trace-cmd report) for the text equivalent
 */
export function traceRecordToJson(
  ev: RingBufferEvent,
  options: Pick<TraceOutputOptions, 'eventType' | 'comm'>,
): TraceJsonRecord {
  const record = ev.data();
  const view = ev.view;
  const id = view.getUint16(ev.offset, true);
  const pid = view.getInt32(ev.offset + 4, true);
  const type = options.eventType(id);
  const fields: Record<string, DecodedValue> = {};
  for (const f of type?.fields ?? []) fields[f.name] = decodeField(record, f);
  return {
    ts: ev.ts,
    cpu: ev.cpu,
    pid,
    comm: traceFindCmdline(pid, options.comm),
    event: type === undefined ? `unknown:${id}` : `${type.system}:${type.name}`,
    fields,
  };
}

/**
 * Exports every record (non-consuming, merged by time) as JSON Lines: one object per line.
 *
 * @example
 * writeFileSync('trace.jsonl', exportTraceJson(buffer, { eventType, comm }));
 */
export function exportTraceJson(buffer: TraceBuffer, options: Pick<TraceOutputOptions, 'eventType' | 'comm'>): string {
  const lines: string[] = [];
  const it = buffer.iterator();
  for (let ev = it.nextEntry(); ev !== undefined; ev = it.nextEntry()) {
    lines.push(JSON.stringify(traceRecordToJson(ev, options)));
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
