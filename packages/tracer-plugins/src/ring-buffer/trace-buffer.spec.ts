import { describe, expect, it } from 'vitest';
import { TraceBuffer } from './trace-buffer.js';

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
