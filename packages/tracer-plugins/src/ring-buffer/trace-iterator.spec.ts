import { describe, expect, it } from 'vitest';
import { TraceBuffer } from './trace-buffer.js';
import type { TraceIterator } from './trace-iterator.js';

const rec = (tag: number) => new Uint8Array(8).fill(tag);

function readAll(it: TraceIterator): [number, number, number, number][] {
  const out: [number, number, number, number][] = [];
  for (let ev = it.nextEntry(); ev; ev = it.nextEntry()) out.push([ev.cpu, ev.ts, ev.bytes[ev.offset], ev.lost]);
  return out;
}

describe('TraceIterator.nextEntry', () => {
  it('should merge CPUs by timestamp without consuming', () => {
    const buf = new TraceBuffer({ cpus: 2, bufferSizeKb: 1 });
    buf.write(1, 1, rec(1));
    buf.write(0, 2, rec(2));
    buf.write(1, 2, rec(3));
    buf.write(0, 3, rec(4));
    const expected = [
      [1, 1, 1, 0],
      [0, 2, 2, 0],
      [1, 2, 3, 0],
      [0, 3, 4, 0],
    ];
    expect(readAll(buf.iterator())).toEqual(expected);
    expect(readAll(buf.iterator())).toEqual(expected);
    expect(buf.entries).toBe(4);
  });

  it('should continue with records written after it caught up', () => {
    const buf = new TraceBuffer({ cpus: 1, bufferSizeKb: 1 });
    const it = buf.iterator();
    buf.write(0, 1, rec(1));
    expect(readAll(it).map((r) => r[1])).toEqual([1]);
    buf.write(0, 2, rec(2));
    expect(readAll(it).map((r) => r[1])).toEqual([2]);
  });

  it('should count records overwritten under it as lost', () => {
    const buf = new TraceBuffer({ cpus: 1, bufferSizeKb: 1 }); // 51 records of 20 bytes
    for (let i = 0; i < 10; i++) buf.write(0, i, rec(i));
    const it = buf.iterator();
    expect(it.nextEntry()!.ts).toBe(0);
    for (let i = 10; i < 60; i++) buf.write(0, i, rec(i)); // overwrites ts 0..8
    const ev = it.nextEntry()!;
    expect([ev.ts, ev.lost]).toEqual([9, 8]);
  });

  it('should restart from the oldest record after a reset', () => {
    const buf = new TraceBuffer({ cpus: 1, bufferSizeKb: 1 });
    buf.write(0, 1, rec(1));
    const it = buf.iterator();
    it.nextEntry();
    buf.reset();
    buf.write(0, 5, rec(5));
    expect(readAll(it).map((r) => r[1])).toEqual([5]);
  });
});
