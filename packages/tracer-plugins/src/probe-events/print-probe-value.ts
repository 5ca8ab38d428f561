import type { FormatContext } from '../events/trace-event-type.js';
import { escapeTraceBytes } from '../trace-output/escape-control.js';
import type { FetchType } from './fetch-type.js';

/** What the kernel prints for a string whose fetch failed. @see FAULT_STRING */
export const FAULT_STRING = '(fault)';

/** Strings longer than this go through the escaper; shorter printable-ASCII ones are built directly. */
const SHORT_STRING = 64;
/** 2^53 / 2^32: a u64 whose high half is below this is exact as a JS number. */
const SAFE_HI = 0x200000;

/** Byte → its hex digits without and with a leading zero (`toString(16)` is slow on the formatting path). */
const HEX1: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16));
const HEX2: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** An unsigned 32-bit value as `%x` hex digits. */
export function hex32(n: number): string {
  if (n < 0x100) return HEX1[n];
  if (n < 0x10000) return HEX1[n >>> 8] + HEX2[n & 0xff];
  if (n < 0x1000000) return HEX1[n >>> 16] + HEX2[(n >>> 8) & 0xff] + HEX2[n & 0xff];
  return HEX1[n >>> 24] + HEX2[(n >>> 16) & 0xff] + HEX2[(n >>> 8) & 0xff] + HEX2[n & 0xff];
}

/** An unsigned 32-bit value as eight hex digits. */
function hex32Padded(n: number): string {
  return HEX2[n >>> 24] + HEX2[(n >>> 16) & 0xff] + HEX2[(n >>> 8) & 0xff] + HEX2[n & 0xff];
}

/** A value of up to 4 bytes as a number (`signed`: sign-extended). */
function readSmall(view: DataView, at: number, size: number, signed: boolean): number {
  if (size === 4) return signed ? view.getInt32(at, true) : view.getUint32(at, true);
  if (size === 2) return signed ? view.getInt16(at, true) : view.getUint16(at, true);
  return signed ? view.getInt8(at) : view.getUint8(at);
}

/** A u64 as decimal, through BigInt only when it is past 2^53. */
function u64Decimal(view: DataView, at: number): string {
  const hi = view.getUint32(at + 4, true);
  if (hi < SAFE_HI) return String(hi * 0x1_0000_0000 + view.getUint32(at, true));
  return view.getBigUint64(at, true).toString();
}

/** An s64 as decimal, through BigInt only when its magnitude is past 2^53. */
function s64Decimal(view: DataView, at: number): string {
  const hi = view.getInt32(at + 4, true);
  if (hi >= -SAFE_HI && hi < SAFE_HI) return String(hi * 0x1_0000_0000 + view.getUint32(at, true));
  return view.getBigInt64(at, true).toString();
}

/** A u64 as `%Lx` hex digits. */
function u64Hex(view: DataView, at: number): string {
  const hi = view.getUint32(at + 4, true);
  const lo = view.getUint32(at, true);
  return hi === 0 ? hex32(lo) : hex32(hi) + hex32Padded(lo);
}

/**
 * A `__data_loc` string: `(fault)` when its length is 0, else the quoted bytes up to the NUL, escaped
 * for a terminal ({@link escapeTraceBytes}: controls and bytes that are not UTF-8 as `\xNN`).
 */
function printString(bytes: Uint8Array, view: DataView, at: number, base: number, end: number): string {
  const loc = view.getUint32(at, true);
  const len = loc >>> 16;
  if (!len) return FAULT_STRING;
  const start = base + (loc & 0xffff);
  const limit = Math.min(end, start + len);
  let stop = start;
  let plain = true;
  while (stop < limit && bytes[stop] !== 0) {
    const b = bytes[stop];
    if (b < 0x20 || b >= 0x7f || b === 0x5c) plain = false;
    stop++;
  }
  if (!plain || stop - start > SHORT_STRING) return `"${escapeTraceBytes(bytes, start, stop)}"`;
  let s = '"';
  for (let i = start; i < stop; i++) s += String.fromCharCode(bytes[i]);
  return `${s}"`;
}

/**
 * One stored value as `trace` prints it: `%u`/`%Lu`, `%d`/`%Ld`, `0x%x`/`0x%Lx`, `'%c'`, `%pS`, or a
 * quoted string. `at` is the value's index in `bytes`, `base` the record's first byte (`__data_loc`
 * offsets count from it) and `end` the index past its last byte.
 *
 * @see kernel/trace/trace_probe.c PRINT_TYPE_FUNC_NAME(*)
 */
export function printProbeValue(
  type: FetchType,
  bytes: Uint8Array,
  view: DataView,
  at: number,
  base: number,
  end: number,
  ctx: FormatContext,
): string {
  const size = type.size;
  switch (type.print) {
    case 'u':
      return size === 8 ? u64Decimal(view, at) : String(readSmall(view, at, size, false));
    case 's':
      return size === 8 ? s64Decimal(view, at) : String(readSmall(view, at, size, true));
    case 'x':
      return size === 8 ? `0x${u64Hex(view, at)}` : `0x${hex32(readSmall(view, at, size, false))}`;
    case 'char':
      return `'${escapeTraceBytes(bytes, at, at + 1)}'`;
    case 'symbol': {
      const v = size === 8 ? view.getBigUint64(at, true) : BigInt(readSmall(view, at, size, false));
      return ctx.symbolize(v) ?? `0x${v.toString(16)}`;
    }
    case 'string':
      return printString(bytes, view, at, base, end);
  }
}
