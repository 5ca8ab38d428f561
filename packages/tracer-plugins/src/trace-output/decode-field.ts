import type { FieldDescriptor } from '../events/trace-event-type.js';

/** A decoded field: integers as numbers when exactly representable, otherwise decimal strings. */
export type DecodedValue = number | string | (number | string)[];

const decoder = new TextDecoder();

/**
 * Reads one field of a record (starting at `record[base]`): integers per size and signedness,
 * `__data_loc char[]` and `char[N]` as strings up to the NUL, other arrays element by element.
 *
 * @see tools/lib/traceevent (libtraceevent) tep_read_number_field() for the same decoding in userspace
 */
export function decodeField(record: Uint8Array, field: FieldDescriptor, base = 0): DecodedValue {
  const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
  if (field.kind === 'string') {
    const loc = view.getUint32(base + field.offset, true);
    const start = base + (loc & 0xffff);
    return readCString(record, start, start + (loc >>> 16));
  }
  if (field.kind === 'array') {
    if (/\bchar\b/.test(field.ctype)) return readCString(record, base + field.offset, base + field.offset + field.size);
    const count = field.count ?? 1;
    const width = field.size / count;
    const out: (number | string)[] = [];
    for (let i = 0; i < count; i++) out.push(readInt(view, base + field.offset + i * width, width, field.signed));
    return out;
  }
  return readInt(view, base + field.offset, field.size, field.signed);
}

function readInt(view: DataView, offset: number, size: number, signed: boolean): number | string {
  switch (size) {
    case 1:
      return signed ? view.getInt8(offset) : view.getUint8(offset);
    case 2:
      return signed ? view.getInt16(offset, true) : view.getUint16(offset, true);
    case 4:
      return signed ? view.getInt32(offset, true) : view.getUint32(offset, true);
    case 8: {
      const v = signed ? view.getBigInt64(offset, true) : view.getBigUint64(offset, true);
      return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v.toString();
    }
    default:
      throw new RangeError(`decodeField: no ${size}-byte integers`);
  }
}

function readCString(record: Uint8Array, start: number, limit: number): string {
  const end0 = Math.min(limit, record.length);
  let end = start;
  while (end < end0 && record[end] !== 0) end++;
  return decoder.decode(record.subarray(start, end));
}
