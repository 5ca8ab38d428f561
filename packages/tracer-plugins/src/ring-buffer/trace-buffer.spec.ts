import { describe, expect, it } from 'vitest';
import { MAX_BUFFER_SIZE_KB, TraceBuffer } from './trace-buffer.js';

const rec = (tag: number) => new Uint8Array(8).fill(tag);

describe(TraceBuffer, () => {
  it('should merge CPUs by timestamp in trace_pipe, lower CPU first on ties', () => {
    const buf = new TraceBuffer({ cpus: 3, bufferSizeKb: 1 });
    buf.write(2, 5, rec(1));
    buf.write(0, 5, rec(5));
    buf.write(1, 5, rec(3));
    buf.write(1, 9, rec(4));
    buf.write(0, 7, rec(2));
    const order: [number, number, number][] = [];
    for (let ev = buf.consume(); ev; ev = buf.consume()) order.push([ev.cpu, ev.ts, ev.bytes[ev.offset]]);
    expect(order).toEqual([
      [0, 5, 5],
      [1, 5, 3],
      [2, 5, 1],
      [0, 7, 2],
      [1, 9, 4],
    ]);
    expect(buf.entries).toBe(0);
  });

  it('should neither store nor count writes while tracing_on is 0', () => {
    const buf = new TraceBuffer({ cpus: 1, bufferSizeKb: 1 });
    buf.tracingOn = false;
    expect(buf.write(0, 1, rec(1))).toBe(false);
    expect(buf.reserve(0, 8)).toBeUndefined();
    expect([buf.entries, buf.entriesWritten]).toEqual([0, 0]);
    buf.tracingOn = true;
    expect(buf.write(0, 2, rec(2))).toBe(true);
    expect([buf.entries, buf.entriesWritten]).toEqual([1, 1]);
  });

  it('should report entries-written as entries plus overrun, excluding consumed records', () => {
    const buf = new TraceBuffer({ cpus: 2, bufferSizeKb: 1 }); // 1024 / 20 = 51 records per CPU
    for (let i = 0; i < 60; i++) buf.write(0, i, rec(i));
    buf.write(1, 100, rec(1));
    buf.write(1, 101, rec(2));
    expect(buf.entries).toBe(51 + 2);
    expect(buf.entriesWritten).toBe(60 + 2);
    buf.consume(); // the oldest is on CPU 0
    expect(buf.entries).toBe(52);
    expect(buf.entriesWritten).toBe(61);
  });

  it('should clear every CPU on reset and on resize, keeping the new size per CPU', () => {
    const buf = new TraceBuffer({ cpus: 2, bufferSizeKb: 1 });
    buf.write(0, 1, rec(1));
    buf.write(1, 1, rec(1));
    buf.reset();
    expect(buf.entries).toBe(0);
    buf.write(1, 1, rec(1));
    buf.resize(2);
    expect([buf.entries, buf.bufferSizeKb, buf.bufferTotalSizeKb, buf.cpu(1).capacity]).toEqual([0, 2, 4, 2048]);
  });

  it('should hold at most buffer_size_kb per CPU however many records come, in the one allocation', () => {
    const buf = new TraceBuffer({ cpus: 2, bufferSizeKb: 4 });
    const storage = [buf.cpu(0).bytes, buf.cpu(1).bytes];
    const record = new Uint8Array(60);
    for (let i = 0; i < 100_000; i++) buf.write(i & 1, i, record);
    for (const cpu of [0, 1]) {
      const ring = buf.cpu(cpu);
      expect(ring.bytes).toBe(storage[cpu]);
      expect(ring.capacity).toBe(4096);
      expect(ring.stats().bytes).toBeLessThanOrEqual(4096);
      expect(ring.entries + ring.overrun).toBe(50_000);
    }
  });

  it('should refuse a size above MAX_BUFFER_SIZE_KB per CPU', () => {
    expect(() => new TraceBuffer({ cpus: 1, bufferSizeKb: MAX_BUFFER_SIZE_KB + 1 })).toThrow(RangeError);
    const buf = new TraceBuffer({ cpus: 1, bufferSizeKb: 1 });
    expect(() => buf.resize(MAX_BUFFER_SIZE_KB + 1)).toThrow(
      `buffer_size_kb must be an integer from 1 to ${MAX_BUFFER_SIZE_KB}, got ${MAX_BUFFER_SIZE_KB + 1}`,
    );
    expect(buf.bufferSizeKb).toBe(1);
  });

  it('should stamp reservations with the clock when no timestamp is given', () => {
    let now = 41;
    const buf = new TraceBuffer({ cpus: 1, bufferSizeKb: 1, clock: () => ++now });
    const ev = buf.reserve(0, 4)!;
    buf.commit(0);
    expect(ev.cpu).toBe(0);
    expect(buf.consume()!.ts).toBe(42);
  });

  it('should reject a CPU number it does not have', () => {
    const buf = new TraceBuffer({ cpus: 1, bufferSizeKb: 1 });
    expect(() => buf.write(3, 0, rec(0))).toThrow(/no CPU 3/);
  });
});
