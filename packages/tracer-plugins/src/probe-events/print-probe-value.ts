import type { FormatContext } from '../events/trace-event-type.js';
import type { FetchType } from './fetch-type.js';

/** What the kernel prints for a string whose fetch failed. @see FAULT_STRING */
export const FAULT_STRING = '(fault)';

const decoder = new TextDecoder('latin1');

function readUnsigned(view: DataView, at: number, size: number): bigint {
  if (size === 8) return view.getBigUint64(at, true);
  if (size === 4) return BigInt(view.getUint32(at, true));
  if (size === 2) return BigInt(view.getUint16(at, true));
  return BigInt(view.getUint8(at));
}

function readSigned(view: DataView, at: number, size: number): bigint {
  if (size === 8) return view.getBigInt64(at, true);
  if (size === 4) return BigInt(view.getInt32(at, true));
  if (size === 2) return BigInt(view.getInt16(at, true));
  return BigInt(view.getInt8(at));
}

/** A `__data_loc` string: `(fault)` when its length is 0, else the quoted bytes up to the NUL. */
function printString(record: Uint8Array, view: DataView, at: number): string {
  const loc = view.getUint32(at, true);
  const len = loc >>> 16;
  if (!len) return FAULT_STRING;
  const start = loc & 0xffff;
  let end = start;
  const limit = Math.min(record.length, start + len);
  while (end < limit && record[end] !== 0) end++;
  return `"${decoder.decode(record.subarray(start, end))}"`;
}

/**
 * One stored value as `trace` prints it: `%u`/`%Lu`, `%d`/`%Ld`, `0x%x`/`0x%Lx`, `'%c'`, `%pS`, or a
 * quoted string.
 *
 * @see kernel/trace/trace_probe.c PRINT_TYPE_FUNC_NAME(*)
 */
export function printProbeValue(
  type: FetchType,
  record: Uint8Array,
  view: DataView,
  at: number,
  ctx: FormatContext,
): string {
  switch (type.print) {
    case 'u':
      return readUnsigned(view, at, type.size).toString();
    case 's':
      return readSigned(view, at, type.size).toString();
    case 'x':
      return `0x${readUnsigned(view, at, type.size).toString(16)}`;
    case 'char':
      return `'${String.fromCharCode(view.getUint8(at))}'`;
    case 'symbol': {
      const v = readUnsigned(view, at, type.size);
      return ctx.symbolize(v) ?? `0x${v.toString(16)}`;
    }
    case 'string':
      return printString(record, view, at);
  }
}
