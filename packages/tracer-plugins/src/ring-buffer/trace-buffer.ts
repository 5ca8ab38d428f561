import { RingBuffer, type RingBufferState } from './ring-buffer.js';
import { RingBufferEvent } from './ring-buffer-event.js';
import { TraceIterator } from './trace-iterator.js';

/** The kernel's default per-CPU `buffer_size_kb` (trace_buf_size = 1441792 bytes). */
export const DEFAULT_BUFFER_SIZE_KB = 1408;

/**
 * The largest per-CPU `buffer_size_kb`: 64 MiB (`--buffer-size`'s limit too). Each CPU's buffer is
 * one allocation of exactly that size, made when the size is set and never grown by tracing, so the
 * trace holds at most this much per CPU however long the run. The kernel refuses a size it cannot
 * allocate with ENOMEM; this is the size int3 can.
 *
 * @see kernel/trace/ring_buffer.c ring_buffer_resize()
 */
export const MAX_BUFFER_SIZE_KB = 65_536;

/** How to build a {@link TraceBuffer}. */
export interface TraceBufferOptions {
  /** Number of CPUs (`#P:` in the header); one ring buffer each. */
  readonly cpus: number;
  /** Per-CPU size in KiB, as `buffer_size_kb`; default {@link DEFAULT_BUFFER_SIZE_KB}. */
  readonly bufferSizeKb?: number;
  /** Virtual clock in ns used when `reserve` is given no timestamp; default always 0. */
  readonly clock?: () => number;
}

/**
 * The trace array's buffer: one {@link RingBuffer} per CPU plus the global switches of tracefs —
 * `tracing_on` (writes while off are neither stored nor counted), `buffer_size_kb` (per CPU; changing
 * it clears), `echo > trace` ({@link reset}), the `overwrite` option, the `trace` iterator and the
 * consuming `trace_pipe` reader.
 *
 * @see kernel/trace/trace.c struct array_buffer, tracer_tracing_on(), tracing_resize_ring_buffer()
 * @example
 * const buf = new TraceBuffer({ cpus: 2, bufferSizeKb: 4 });
 * buf.write(1, 1_000, record);
 * const ev = buf.consume(); // ev.cpu === 1, ev.ts === 1000
 */
export class TraceBuffer {
  /** `tracing_on`. @see tracer_tracing_on(), tracer_tracing_off() */
  tracingOn = true;
  private rings: RingBuffer[];
  private sizeKb: number;
  private readonly clock: () => number;
  private readonly pipeEvent = new RingBufferEvent();

  constructor(options: TraceBufferOptions) {
    if (!Number.isInteger(options.cpus) || options.cpus < 1) {
      throw new RangeError(`TraceBuffer: cpus must be a positive integer, got ${options.cpus}`);
    }
    this.sizeKb = checkSizeKb(options.bufferSizeKb ?? DEFAULT_BUFFER_SIZE_KB);
    this.clock = options.clock ?? (() => 0);
    this.rings = [];
    for (let cpu = 0; cpu < options.cpus; cpu++) this.rings.push(new RingBuffer(this.sizeKb * 1024));
  }

  /** Number of CPUs. */
  get nrCpus(): number {
    return this.rings.length;
  }

  /** One CPU's ring buffer (its counters and `per_cpu/cpu<N>/stats`). */
  cpu(cpu: number): RingBuffer {
    const ring = this.rings[cpu];
    if (ring === undefined) throw new RangeError(`TraceBuffer: no CPU ${cpu} (have ${this.rings.length})`);
    return ring;
  }

  /** `buffer_size_kb`: the size of each CPU's buffer in KiB. */
  get bufferSizeKb(): number {
    return this.sizeKb;
  }

  /** `buffer_total_size_kb`: the sum over CPUs. */
  get bufferTotalSizeKb(): number {
    return this.sizeKb * this.rings.length;
  }

  /** Writes `buffer_size_kb`: reallocates every CPU's buffer, discarding its contents. */
  resize(bufferSizeKb: number): void {
    this.sizeKb = checkSizeKb(bufferSizeKb);
    for (const ring of this.rings) ring.resize(this.sizeKb * 1024);
  }

  /** The `overwrite` trace option: evict the oldest records (true) or drop new ones (false). */
  get overwrite(): boolean {
    return this.rings[0].overwrite;
  }

  set overwrite(on: boolean) {
    for (const ring of this.rings) ring.overwrite = on;
  }

  /**
   * Reserves a record of `length` bytes on `cpu`; undefined if tracing is off or the record was dropped.
   *
   * @see ring_buffer_lock_reserve()
   */
  reserve(cpu: number, length: number, ts: number = this.clock()): RingBufferEvent | undefined {
    if (!this.tracingOn) return undefined;
    const ev = this.cpu(cpu).reserve(length, ts);
    if (ev !== undefined) ev.cpu = cpu;
    return ev;
  }

  /** Publishes the record reserved on `cpu`. @see ring_buffer_unlock_commit() */
  commit(cpu: number): void {
    this.cpu(cpu).commit();
  }

  /** Abandons the record reserved on `cpu` (filtered out). @see ring_buffer_discard_commit() */
  discard(cpu: number): void {
    this.cpu(cpu).discard();
  }

  /** Copies one record in; false if tracing is off or it was dropped. @see ring_buffer_write() */
  write(cpu: number, ts: number, data: Uint8Array): boolean {
    if (!this.tracingOn) return false;
    return this.cpu(cpu).write(ts, data);
  }

  /** `echo > trace`: empties every CPU and zeroes the counters. @see tracing_reset_online_cpus() */
  reset(): void {
    for (const ring of this.rings) ring.reset();
  }

  /**
   * Exchanges the records of this buffer and `other` (same CPU count and size), as a snapshot does;
   * `tracing_on` stays with each buffer.
   *
   * @see kernel/trace/trace.c update_max_tr()
   */
  swap(other: TraceBuffer): void {
    if (other.rings.length !== this.rings.length || other.sizeKb !== this.sizeKb) {
      throw new RangeError('TraceBuffer.swap: the buffers differ in CPUs or size');
    }
    [this.rings, other.rings] = [other.rings, this.rings];
  }

  /** `entries-in-buffer`: records currently held, all CPUs. @see get_total_entries() */
  get entries(): number {
    let n = 0;
    for (const ring of this.rings) n += ring.entries;
    return n;
  }

  /** `entries-written`: records held plus records overwritten (consumed ones count in neither). @see get_total_entries() */
  get entriesWritten(): number {
    let n = 0;
    for (const ring of this.rings) n += ring.entries + ring.overrun;
    return n;
  }

  /**
   * A non-consuming reader merging all CPUs by timestamp (the `trace` file), or reading one CPU
   * (`per_cpu/cpu<N>/trace`).
   */
  iterator(cpu?: number): TraceIterator {
    if (cpu !== undefined) this.cpu(cpu);
    return new TraceIterator(this.rings, cpu);
  }

  /**
   * Removes and returns the oldest record across CPUs (ties: lower CPU), as `trace_pipe` reads, or the
   * oldest of CPU `only` (`per_cpu/cpu<N>/trace_pipe`); the returned object is reused and its bytes stay valid until the next write to that CPU.
   *
   * @see kernel/trace/trace.c trace_find_next_entry_inc() with a consuming iterator, ring_buffer_consume()
   */
  consume(only?: number): RingBufferEvent | undefined {
    let best = -1;
    let bestTs = 0;
    const first = only ?? 0;
    const end = only === undefined ? this.rings.length : only + 1;
    if (only !== undefined) this.cpu(only);
    for (let cpu = first; cpu < end; cpu++) {
      const ring = this.rings[cpu];
      if (ring.entries === 0) continue;
      const ts = ring.timestampAt(ring.headOffset);
      if (best < 0 || ts < bestTs) {
        best = cpu;
        bestTs = ts;
      }
    }
    if (best < 0) return undefined;
    const ev = this.pipeEvent;
    this.rings[best].consume(ev);
    ev.cpu = best;
    return ev;
  }

  /**
   * The buffer as it is now, for a machine snapshot (each ring's storage shared while unchanged).
   * @internal Snapshot plumbing: the machine snapshot saves and restores it.
   */
  save(): TraceBufferState {
    return Object.freeze({
      tracingOn: this.tracingOn,
      sizeKb: this.sizeKb,
      rings: Object.freeze(this.rings.map((r) => Object.freeze([r, r.save()] as const))),
    });
  }

  /**
   * Puts the buffer back as {@link save} found it (readers' positions are void after it).
   * @internal Snapshot plumbing: the machine snapshot saves and restores it.
   */
  restore(s: TraceBufferState): void {
    this.tracingOn = s.tracingOn;
    this.sizeKb = s.sizeKb;
    this.rings = s.rings.map(([ring, state]) => {
      ring.restore(state);
      return ring;
    });
  }

  /**
   * Consumes, without returning them, the records of `cpu` numbered below `seq` (the records a reader
   * took once already: a snapshot's restore and the re-run since brought them back).
   */
  consumeBefore(cpu: number, seq: number): void {
    const ring = this.cpu(cpu);
    while (ring.entries > 0 && ring.headSeq < seq) ring.consume(this.pipeEvent);
  }
}

/** A {@link TraceBuffer} at a snapshot: its switch, its size and each CPU's ring (by identity: swaps move them). */
export interface TraceBufferState {
  readonly tracingOn: boolean;
  readonly sizeKb: number;
  readonly rings: readonly (readonly [RingBuffer, RingBufferState])[];
}

function checkSizeKb(kb: number): number {
  if (!Number.isInteger(kb) || kb < 1 || kb > MAX_BUFFER_SIZE_KB) {
    throw new RangeError(`buffer_size_kb must be an integer from 1 to ${MAX_BUFFER_SIZE_KB}, got ${kb}`);
  }
  return kb;
}
