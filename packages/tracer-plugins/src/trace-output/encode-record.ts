import { COMMON_FIELDS, type FieldDescriptor } from '../events/trace-event-type.js';

/** A field value for {@link encodeRecord}: integers as number or bigint, strings, or array elements. */
export type FieldValue = number | bigint | string | readonly (number | bigint)[];

const encoder = new TextEncoder();

/**
 * Builds a record laid out per the record contract: the common header, the fixed fields at their
 * offsets, then each `__data_loc` string (NUL-terminated) appended with its `length << 16 | offset`
 * word. Missing fields are zero. Meant for tests, tools and slow paths; producers on the hot path
 * write into a ring-buffer reservation instead.
 *
 * @see include/trace/trace_events.h __assign_str(), __get_dynamic_array()
 * @example
 * encodeRecord(fields, { common_type: 7, common_pid: 42, dfd: 3n, filename: '/etc/passwd' });
 */
export function encodeRecord(
  fields: readonly FieldDescriptor[],
  values: Readonly<Record<string, FieldValue>>,
): Uint8Array {
  const all = [...COMMON_FIELDS, ...fields];
  let fixed = 0;
  for (const f of all) fixed = Math.max(fixed, f.offset + f.size);
  const strings = all
    .filter((f) => f.kind === 'string')
    .map((f) => ({ f, bytes: encoder.encode(String(values[f.name] ?? '')) }));
  const total = strings.reduce((n, s) => n + s.bytes.length + 1, fixed);
  const record = new Uint8Array(total);
  const view = new DataView(record.buffer);
  for (const f of all) {
    const v = values[f.name];
    if (v === undefined || f.kind === 'string') continue;
    if (f.kind === 'array') {
      if (typeof v === 'string') record.set(encoder.encode(v).subarray(0, f.size), f.offset);
      else if (Array.isArray(v)) {
        const width = f.size / (f.count ?? 1);
        for (let i = 0; i < v.length; i++) writeInt(view, f.offset + i * width, width, v[i]);
      }
      continue;
    }
    writeInt(view, f.offset, f.size, v as number | bigint);
  }
  let at = fixed;
  for (const { f, bytes } of strings) {
    record.set(bytes, at);
    view.setUint32(f.offset, (((bytes.length + 1) << 16) | at) >>> 0, true);
    at += bytes.length + 1;
  }
  return record;
}

function writeInt(view: DataView, offset: number, size: number, value: number | bigint): void {
  const v = BigInt.asUintN(size * 8, BigInt(value));
  if (size === 8) view.setBigUint64(offset, v, true);
  else if (size === 4) view.setUint32(offset, Number(v), true);
  else if (size === 2) view.setUint16(offset, Number(v), true);
  else if (size === 1) view.setUint8(offset, Number(v));
  else throw new RangeError(`encodeRecord: no ${size}-byte integers`);
}
