import type { RingBuffer } from './ring-buffer.js';
import { RingBufferEvent } from './ring-buffer-event.js';

/**
 * A non-consuming reader over every CPU's buffer, as the `trace` file reads: records come out merged
 * by timestamp (ties: lower CPU first, then write order). Writes may continue between calls: records
 * overwritten before the iterator reached them are reported in `lost` on the next record of that CPU;
 * a reset or resize restarts that CPU from its oldest record. Allocation-free after construction.
 *
 * @see kernel/trace/trace.c trace_find_next_entry_inc(), kernel/trace/ring_buffer.c ring_buffer_iter_peek()
 * @example
 * const it = buffer.iterator();
 * for (let ev = it.nextEntry(); ev; ev = it.nextEntry()) print(ev.cpu, ev.ts, ev.data());
 */
export class TraceIterator {
  private readonly offsets: number[];
  private readonly seqs: number[];
  private readonly generations: number[];
  private readonly lost: number[];
  /** 1 when `offsets` holds the record just returned and must still step past it. */
  private readonly pending: Uint8Array;
  private readonly event = new RingBufferEvent();

  private readonly first: number;
  private readonly end: number;

  /** `cpu`: read only that CPU's buffer (`per_cpu/cpu<N>/trace`); default all. */
  constructor(
    private readonly rings: readonly RingBuffer[],
    cpu?: number,
  ) {
    this.first = cpu ?? 0;
    this.end = cpu === undefined ? rings.length : cpu + 1;
    const n = rings.length;
    this.offsets = new Array<number>(n).fill(0);
    this.seqs = new Array<number>(n).fill(0);
    this.generations = new Array<number>(n).fill(-1);
    this.lost = new Array<number>(n).fill(0);
    this.pending = new Uint8Array(n);
  }

  /** The next record in timestamp order (a reused object), or undefined when all CPUs are read. */
  nextEntry(): RingBufferEvent | undefined {
    let best = -1;
    let bestTs = 0;
    for (let cpu = this.first; cpu < this.end; cpu++) {
      if (!this.sync(cpu)) continue;
      const ts = this.rings[cpu].timestampAt(this.offsets[cpu]);
      if (best < 0 || ts < bestTs) {
        best = cpu;
        bestTs = ts;
      }
    }
    if (best < 0) return undefined;
    const ev = this.event;
    this.rings[best].fill(ev, this.offsets[best]);
    ev.cpu = best;
    ev.lost = this.lost[best];
    this.lost[best] = 0;
    this.seqs[best]++;
    this.pending[best] = 1;
    return ev;
  }

  /** Brings one CPU's cursor up to date; true if it points at an unread record. */
  private sync(cpu: number): boolean {
    const ring = this.rings[cpu];
    if (this.generations[cpu] !== ring.generation) {
      this.generations[cpu] = ring.generation;
      this.seqs[cpu] = ring.headSeq;
      this.offsets[cpu] = ring.headOffset;
      this.lost[cpu] = 0;
      this.pending[cpu] = 0;
    }
    const seq = this.seqs[cpu];
    const headSeq = ring.headSeq;
    if (this.pending[cpu] === 1) {
      // The record returned last (seq - 1) may have been overwritten since; then restart from the head.
      if (seq - 1 < headSeq) {
        this.pending[cpu] = 0;
      } else if (seq < ring.committed) {
        this.offsets[cpu] = ring.nextOffset(this.offsets[cpu]);
        this.pending[cpu] = 0;
      } else {
        return false;
      }
    }
    if (this.pending[cpu] === 0 && seq <= headSeq) {
      if (seq < headSeq) this.lost[cpu] += headSeq - seq;
      this.seqs[cpu] = headSeq;
      this.offsets[cpu] = ring.headOffset;
    }
    return this.seqs[cpu] < ring.committed;
  }
}
