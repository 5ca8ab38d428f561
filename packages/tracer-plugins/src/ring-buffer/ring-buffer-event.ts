/**
 * Bytes in front of every record in a {@link RingBuffer}: a u32 length word (the payload length, or
 * {@link RB_PADDING} for the unused tail of a lap) followed by the f64 timestamp.
 *
 * @see kernel/trace/ring_buffer.c struct ring_buffer_event (type_len + time_delta)
 */
export const RB_EVENT_HEADER_SIZE = 12;

/** Length-word flag marking padding: the reader skips to the start of the buffer. @see RINGBUF_TYPE_PADDING */
export const RB_PADDING = 0x8000_0000;

/** Records are 4-byte aligned, as the kernel's `RB_ALIGNMENT`. */
export const RB_ALIGNMENT = 4;

/**
 * Bytes a record of `length` payload bytes occupies in the buffer (header + payload, aligned).
 *
 * @see kernel/trace/ring_buffer.c rb_calculate_event_length()
 */
export function rbEventSize(length: number): number {
  return (RB_EVENT_HEADER_SIZE + length + RB_ALIGNMENT - 1) & ~(RB_ALIGNMENT - 1);
}

/**
 * A window onto one record inside a per-CPU buffer, as a producer (after `reserve`) or a reader sees it.
 * The object is reused by its owner: read it before the next call on the same buffer or reader. The
 * payload is `bytes[offset, offset + length)`; `view` reads it without allocating.
 *
 * @see include/linux/ring_buffer.h struct ring_buffer_event, ring_buffer_event_data()
 */
export class RingBufferEvent {
  /** The whole per-CPU storage; the payload starts at {@link offset}. */
  bytes: Uint8Array = new Uint8Array(0);
  /** A DataView over {@link bytes}. */
  view: DataView = new DataView(this.bytes.buffer);
  /** Payload start in {@link bytes}. */
  offset = 0;
  /** Payload length in bytes. */
  length = 0;
  /** Timestamp in virtual nanoseconds. */
  ts = 0;
  /** CPU whose buffer holds the record. */
  cpu = 0;
  /**
   * Records of this CPU lost (overwritten) since the previous record this reader returned from it;
   * `trace` and `trace_pipe` print `CPU:<n> [LOST <lost> EVENTS]` before the record when non-zero.
   */
  lost = 0;

  /** A copy-free subarray of the payload (allocates a view object; use `bytes`/`offset` on hot paths). */
  data(): Uint8Array {
    return this.bytes.subarray(this.offset, this.offset + this.length);
  }
}
