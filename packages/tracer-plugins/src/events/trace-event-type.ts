/**
 * The contract between event definitions (kprobe events, plugin events), the ring buffer, filters and
 * the trace output. A record is laid out exactly as the kernel's trace entry for the event, the way its
 * `format` file describes it: the 8-byte common header, then the event's fixed fields, then dynamic
 * data (strings) referenced by `__data_loc` words (`length << 16 | offset`, offset from record start).
 *
 * @see include/linux/trace_events.h struct trace_entry
 * @see kernel/trace/trace_events.c event_format
 */

/** Size of the common header: `common_type` u16, `common_flags` u8, `common_preempt_count` u8, `common_pid` s32. */
export const COMMON_HEADER_SIZE = 8;

/** How a field's bytes are read. */
export type FieldKind =
  /** An integer of `size` bytes (1, 2, 4, 8), little-endian, signed or not. */
  | 'int'
  /** A `__data_loc char[]`: a u32 at `offset` = length << 16 | data offset; the data is NUL-terminated. */
  | 'string'
  /** A fixed array of `count` integers of `size / count` bytes each. */
  | 'array';

/** One field of an event record, as the `format` file lists it. */
export interface FieldDescriptor {
  /** Field name (`common_pid`, `__probe_ip`, an argument name). */
  readonly name: string;
  /** C type as printed in the `format` file (`u64`, `unsigned long`, `__data_loc char[]`, `u8[4]`). */
  readonly ctype: string;
  readonly offset: number;
  readonly size: number;
  readonly signed: boolean;
  readonly kind: FieldKind;
  /** Element count, for `kind: 'array'`. */
  readonly count?: number;
}

/** Common fields every record starts with. */
export const COMMON_FIELDS: readonly FieldDescriptor[] = Object.freeze([
  { name: 'common_type', ctype: 'unsigned short', offset: 0, size: 2, signed: false, kind: 'int' },
  { name: 'common_flags', ctype: 'unsigned char', offset: 2, size: 1, signed: false, kind: 'int' },
  { name: 'common_preempt_count', ctype: 'unsigned char', offset: 3, size: 1, signed: false, kind: 'int' },
  { name: 'common_pid', ctype: 'int', offset: 4, size: 4, signed: true, kind: 'int' },
]);

/** What formatting a record may need from the running system. */
export interface FormatContext {
  /** `%pS`-style symbolization: `sym+0xoff/0xsize` (with ` [mod]` for module text), or undefined if unknown. */
  symbolize(address: bigint): string | undefined;
  /**
   * True when symbols do not change while this context object is in use (one read of `trace`), so an
   * event type may remember `symbolize` results for it.
   */
  readonly cacheSymbols?: boolean;
}

/** An event type: its identity, its record layout, and how its body prints in `trace`. */
export interface TraceEventType {
  /** Event id (`events/<group>/<event>/id`), also stored in `common_type`. */
  readonly id: number;
  readonly system: string;
  readonly name: string;
  /** Fixed fields after the common header, in record order. */
  readonly fields: readonly FieldDescriptor[];
  /** The `print fmt:` line of the `format` file (without the `print fmt: ` prefix). */
  readonly printFmt: string;
  /** The text after `<name>: ` in a trace line, e.g. `(do_sys_open+0x0/0x1a0) dfd=0xffffff9c`. */
  formatBody(record: Uint8Array, ctx: FormatContext): string;
  /**
   * Optional allocation-light form of {@link formatBody} for a record at `bytes[offset, offset + length)`
   * (`view` spans `bytes`), so the reader need not cut a subarray per line.
   */
  formatBodyAt?(bytes: Uint8Array, view: DataView, offset: number, length: number, ctx: FormatContext): string;
}
