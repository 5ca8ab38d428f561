import { RB_EVENT_HEADER_SIZE, RB_PADDING, RingBufferEvent, rbEventSize } from './ring-buffer-event.js';

/** The counters of one CPU's buffer, as `per_cpu/cpu<N>/stats` reports them. @see tracing_stats_read() */
export interface RingBufferStats {
  /** Records in the buffer now (written − overrun − read). */
  readonly entries: number;
  /** Records overwritten before anyone read them. */
  readonly overrun: number;
  /** Always 0 here: writers never nest, so a commit cannot be overrun. */
  readonly commitOverrun: number;
  /** Bytes the unread records occupy, headers included. */
  readonly bytes: number;
  /** Timestamp of the oldest record in the buffer, or 0 when empty. */
  readonly oldestEventTs: number;
  /** Timestamp of the newest record written, or 0 when none. */
  readonly nowTs: number;
  /** Records refused: buffer full with overwrite off, or a record larger than the whole buffer. */
  readonly droppedEvents: number;
  /** Records consumed by `trace_pipe`. */
  readonly readEvents: number;
}

/** Bytes per piece of a {@link RingBuffer}'s storage that snapshots share while it is unchanged. */
const SNAPSHOT_CHUNK_SHIFT = 12;
const SNAPSHOT_CHUNK = 1 << SNAPSHOT_CHUNK_SHIFT;

/** A {@link RingBuffer} at a snapshot: its counters, and its storage as pieces shared between snapshots. */
export interface RingBufferState {
  readonly capacity: number;
  readonly counters: readonly number[];
  readonly flags: readonly boolean[];
  readonly chunks: readonly Uint8Array[];
}

/**
 * One CPU's ring buffer: a single preallocated ArrayBuffer holding binary records back to back
 * (`[u32 length][f64 ts][payload]`, 4-byte aligned). When a record does not fit before the end, the
 * rest of the lap is marked as padding and the record goes to the start. In overwrite mode (the
 * default, like the kernel's `overwrite` option) the oldest whole records are evicted to make room
 * and counted in `overrun`; otherwise the new record is dropped and counted in `droppedEvents`.
 *
 * Timestamps are virtual nanoseconds as JS numbers: exact for integers up to 2^53 ns (about 104 days).
 * Single-threaded: one reservation at a time per buffer (no nesting as the kernel's interrupt
 * context would need).
 *
 * @see kernel/trace/ring_buffer.c struct ring_buffer_per_cpu
 * @example
 * const rb = new RingBuffer(4096);
 * const ev = rb.reserve(8, 1000);
 * if (ev) { ev.view.setUint32(ev.offset, 42, true); rb.commit(); }
 */
export class RingBuffer {
  overwrite = true;
  private storage!: Uint8Array;
  private dataView!: DataView;
  private head = 0;
  private tail = 0;
  /** True when the tail has lapped to the start and sits before the head. */
  private wrapped = false;
  private written = 0;
  private overrunCount = 0;
  private readCount = 0;
  private droppedCount = 0;
  private usedBytes = 0;
  private lastTs = 0;
  private lastOverrun = 0;
  private generationCount = 0;
  private reserving = false;
  private reservedSize = 0;
  private readonly event = new RingBufferEvent();
  /** The pieces of the storage the last save or restore holds, and which of them were written since. */
  private saved: readonly Uint8Array[] = [];
  private dirty = new Uint8Array(0);

  constructor(capacity: number) {
    this.allocate(capacity);
  }

  /** Storage size in bytes. */
  get capacity(): number {
    return this.storage.length;
  }

  /** The storage; replaced by {@link resize}. */
  get bytes(): Uint8Array {
    return this.storage;
  }

  /** A DataView over {@link bytes}. */
  get view(): DataView {
    return this.dataView;
  }

  /** Records in the buffer. @see ring_buffer_entries_cpu() */
  get entries(): number {
    return this.written - this.overrunCount - this.readCount;
  }

  /** Records overwritten unread. @see ring_buffer_overrun_cpu() */
  get overrun(): number {
    return this.overrunCount;
  }

  /** Records committed since the last reset. */
  get committed(): number {
    return this.written;
  }

  /** Sequence number of the oldest record in the buffer (records before it were overwritten or read). */
  get headSeq(): number {
    return this.overrunCount + this.readCount;
  }

  /** Offset of the oldest record's header (meaningful when `entries > 0`). */
  get headOffset(): number {
    return this.head;
  }

  /** Bumped by every reset and resize, so readers know their positions are void. */
  get generation(): number {
    return this.generationCount;
  }

  /** The counters of `per_cpu/cpu<N>/stats`. @see tracing_stats_read() */
  stats(): RingBufferStats {
    return {
      entries: this.entries,
      overrun: this.overrunCount,
      commitOverrun: 0,
      bytes: this.usedBytes,
      oldestEventTs: this.entries > 0 ? this.timestampAt(this.head) : 0,
      nowTs: this.lastTs,
      droppedEvents: this.droppedCount,
      readEvents: this.readCount,
    };
  }

  /**
   * Reserves room for a record of `length` payload bytes stamped `ts`, evicting the oldest records
   * if needed. Returns the (reused) event to fill at `offset`, or undefined if the record was dropped.
   * Follow with {@link commit} or {@link discard}.
   *
   * @see kernel/trace/ring_buffer.c ring_buffer_lock_reserve()
   */
  reserve(length: number, ts: number): RingBufferEvent | undefined {
    if (this.reserving) throw new Error('RingBuffer.reserve: the previous reservation was not committed');
    const size = rbEventSize(length);
    if (size > this.storage.length) {
      this.droppedCount++;
      return undefined;
    }
    // Step 1: find `size` contiguous free bytes at the tail, lapping and evicting as needed.
    for (;;) {
      if (!this.wrapped) {
        if (this.tail + size <= this.storage.length) break;
        if (this.entries === 0) {
          this.head = this.tail = 0;
          continue;
        }
        if (this.tail < this.storage.length) {
          this.dataView.setUint32(this.tail, RB_PADDING, true);
          this.dirty[this.tail >>> SNAPSHOT_CHUNK_SHIFT] = 1;
        }
        this.tail = 0;
        this.wrapped = true;
      } else {
        if (this.tail + size <= this.head) break;
        if (!this.overwrite) {
          this.droppedCount++;
          return undefined;
        }
        this.evictOldest();
      }
    }
    // Step 2: hand out the payload window; the header is written on commit.
    this.reserving = true;
    this.reservedSize = size;
    const ev = this.event;
    ev.bytes = this.storage;
    ev.view = this.dataView;
    ev.offset = this.tail + RB_EVENT_HEADER_SIZE;
    ev.length = length;
    ev.ts = ts;
    return ev;
  }

  /** Publishes the reserved record. @see ring_buffer_unlock_commit() */
  commit(): void {
    if (!this.reserving) throw new Error('RingBuffer.commit: nothing reserved');
    const ev = this.event;
    for (
      let c = this.tail >>> SNAPSHOT_CHUNK_SHIFT, last = (this.tail + this.reservedSize - 1) >>> SNAPSHOT_CHUNK_SHIFT;
      c <= last;
      c++
    )
      this.dirty[c] = 1;
    this.dataView.setUint32(this.tail, ev.length, true);
    this.dataView.setFloat64(this.tail + 4, ev.ts, true);
    this.tail += this.reservedSize;
    this.usedBytes += this.reservedSize;
    this.written++;
    this.lastTs = ev.ts;
    this.reserving = false;
  }

  /** Abandons the reserved record (a filter rejected it); it is not counted. @see ring_buffer_discard_commit() */
  discard(): void {
    this.reserving = false;
  }

  /** Copies `data` in as one record; false if it was dropped. @see ring_buffer_write() */
  write(ts: number, data: Uint8Array): boolean {
    const ev = this.reserve(data.length, ts);
    if (ev === undefined) return false;
    ev.bytes.set(data, ev.offset);
    this.commit();
    return true;
  }

  /** Payload length of the record whose header is at `offset`. */
  lengthAt(offset: number): number {
    return this.dataView.getUint32(offset, true);
  }

  /** Timestamp of the record whose header is at `offset`. */
  timestampAt(offset: number): number {
    return this.dataView.getFloat64(offset + 4, true);
  }

  /** Header offset of the record after the one at `offset` (valid only if that record is not the newest). */
  nextOffset(offset: number): number {
    const next = offset + rbEventSize(this.lengthAt(offset));
    if (next >= this.storage.length || (this.dataView.getUint32(next, true) & RB_PADDING) !== 0) return 0;
    return next;
  }

  /**
   * Removes the oldest record for `trace_pipe`, filling `into` with it (`lost` = records overwritten
   * since the previous consume). Returns false when empty. The bytes stay valid until the next write.
   *
   * @see kernel/trace/ring_buffer.c ring_buffer_consume()
   */
  consume(into: RingBufferEvent): boolean {
    if (this.entries === 0) return false;
    this.fill(into, this.head);
    into.lost = this.overrunCount - this.lastOverrun;
    this.lastOverrun = this.overrunCount;
    this.advanceHead();
    this.readCount++;
    this.normalize();
    return true;
  }

  /** Fills `into` with the record whose header is at `offset`. */
  fill(into: RingBufferEvent, offset: number): void {
    into.bytes = this.storage;
    into.view = this.dataView;
    into.offset = offset + RB_EVENT_HEADER_SIZE;
    into.length = this.lengthAt(offset);
    into.ts = this.timestampAt(offset);
  }

  /** Empties the buffer and zeroes every counter. @see ring_buffer_reset_cpu() */
  reset(): void {
    this.head = this.tail = 0;
    this.wrapped = false;
    this.written = this.overrunCount = this.readCount = this.droppedCount = 0;
    this.usedBytes = this.lastTs = this.lastOverrun = 0;
    this.reserving = false;
    this.generationCount++;
  }

  /** Reallocates the storage with a new capacity; the contents are cleared. @see ring_buffer_resize() */
  resize(capacity: number): void {
    this.allocate(capacity);
    this.reset();
  }

  /**
   * The buffer as it is now, for a machine snapshot: the counters, and the storage in pieces of 4 KiB,
   * each piece no record was written to since the last save shared with that save (so snapshots of
   * a buffer that fills slowly cost what was written between them).
   * @internal Snapshot plumbing: the machine snapshot saves and restores it.
   */
  save(): RingBufferState {
    const chunks: Uint8Array[] = [];
    for (let c = 0, at = 0; at < this.storage.length; c++, at += SNAPSHOT_CHUNK) {
      const kept = this.saved[c];
      chunks.push(kept !== undefined && this.dirty[c] === 0 ? kept : this.storage.slice(at, at + SNAPSHOT_CHUNK));
    }
    this.saved = chunks;
    this.dirty.fill(0);
    return Object.freeze({
      capacity: this.storage.length,
      counters: Object.freeze([
        this.head,
        this.tail,
        this.written,
        this.overrunCount,
        this.readCount,
        this.droppedCount,
        this.usedBytes,
        this.lastTs,
        this.lastOverrun,
      ]),
      flags: Object.freeze([this.overwrite, this.wrapped]),
      chunks: Object.freeze(chunks),
    });
  }

  /**
   * Puts the buffer back as {@link save} found it. Readers' positions are void after it (the
   * generation changes), as after a reset.
   * @internal Snapshot plumbing: the machine snapshot saves and restores it.
   */
  restore(s: RingBufferState): void {
    if (s.capacity !== this.storage.length) this.allocate(s.capacity);
    for (let c = 0; c < s.chunks.length; c++) this.storage.set(s.chunks[c], c * SNAPSHOT_CHUNK);
    [
      this.head,
      this.tail,
      this.written,
      this.overrunCount,
      this.readCount,
      this.droppedCount,
      this.usedBytes,
      this.lastTs,
      this.lastOverrun,
    ] = s.counters;
    [this.overwrite, this.wrapped] = s.flags;
    this.reserving = false;
    this.generationCount++;
    this.saved = s.chunks;
    this.dirty.fill(0);
  }

  private allocate(capacity: number): void {
    if (!Number.isInteger(capacity) || capacity < RB_EVENT_HEADER_SIZE || capacity % 4 !== 0) {
      throw new RangeError(`RingBuffer: capacity ${capacity} must be a multiple of 4 of at least 12 bytes`);
    }
    this.storage = new Uint8Array(new ArrayBuffer(capacity));
    this.dataView = new DataView(this.storage.buffer);
    // A new storage shares nothing with the pieces saved before.
    this.saved = [];
    this.dirty = new Uint8Array(Math.ceil(capacity / SNAPSHOT_CHUNK));
  }

  private evictOldest(): void {
    this.advanceHead();
    this.overrunCount++;
    this.normalize();
  }

  private advanceHead(): void {
    const size = rbEventSize(this.lengthAt(this.head));
    this.head += size;
    this.usedBytes -= size;
  }

  /** Keeps `head` on a record: jump over the lap's padding, and rewind both ends when empty. */
  private normalize(): void {
    if (this.entries === 0) {
      this.head = this.tail = 0;
      this.wrapped = false;
      this.usedBytes = 0;
      return;
    }
    if (
      this.wrapped &&
      (this.head >= this.storage.length || (this.dataView.getUint32(this.head, true) & RB_PADDING) !== 0)
    ) {
      this.head = 0;
      this.wrapped = false;
    }
  }
}
