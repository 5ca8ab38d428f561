import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RingBuffer } from './ring-buffer.js';
import { RingBufferEvent, rbEventSize } from './ring-buffer-event.js';

/** A payload of `length` bytes all equal to `tag`, so a torn or misplaced record shows. */
function payload(tag: number, length = 8): Uint8Array {
  return new Uint8Array(length).fill(tag & 0xff);
}

/** Consumes everything, returning [ts, first byte, length, lost] per record. */
function drain(rb: RingBuffer): [number, number, number, number][] {
  const out: [number, number, number, number][] = [];
  const ev = new RingBufferEvent();
  while (rb.consume(ev)) out.push([ev.ts, ev.bytes[ev.offset], ev.length, ev.lost]);
  return out;
}

describe('rbEventSize', () => {
  it('should add the 12-byte header and align to 4 bytes', () => {
    expect(rbEventSize(0)).toBe(12);
    expect(rbEventSize(1)).toBe(16);
    expect(rbEventSize(8)).toBe(20);
  });
});

describe(RingBuffer, () => {
  it('should return records in write order with their timestamps and bytes', () => {
    const rb = new RingBuffer(256);
    rb.write(10, payload(1));
    rb.write(20, payload(2, 3));
    expect(rb.entries).toBe(2);
    expect(drain(rb)).toEqual([
      [10, 1, 8, 0],
      [20, 2, 3, 0],
    ]);
    expect(rb.entries).toBe(0);
    expect(rb.stats().readEvents).toBe(2);
  });

  it('should overwrite the oldest whole records when full and count them as overrun', () => {
    const rb = new RingBuffer(64); // three 20-byte records fit
    for (let i = 1; i <= 5; i++) expect(rb.write(i, payload(i))).toBe(true);
    expect(rb.entries).toBe(3);
    expect(rb.overrun).toBe(2);
    expect(drain(rb).map(([ts, tag]) => [ts, tag])).toEqual([
      [3, 3],
      [4, 4],
      [5, 5],
    ]);
  });

  it('should report overwritten records as lost on the next consume only', () => {
    const rb = new RingBuffer(64);
    for (let i = 1; i <= 5; i++) rb.write(i, payload(i));
    const got = drain(rb);
    expect(got.map((r) => r[3])).toEqual([2, 0, 0]);
  });

  it('should drop new records and count them when overwrite is off', () => {
    const rb = new RingBuffer(64);
    rb.overwrite = false;
    for (let i = 1; i <= 5; i++) rb.write(i, payload(i));
    expect(rb.entries).toBe(3);
    expect(rb.overrun).toBe(0);
    expect(rb.stats().droppedEvents).toBe(2);
    expect(drain(rb).map(([ts]) => ts)).toEqual([1, 2, 3]);
  });

  it('should drop a record larger than the whole buffer without disturbing the others', () => {
    const rb = new RingBuffer(64);
    rb.write(1, payload(1));
    expect(rb.write(2, payload(2, 100))).toBe(false);
    expect(rb.stats().droppedEvents).toBe(1);
    expect(drain(rb).map(([ts]) => ts)).toEqual([1]);
  });

  it('should not count a discarded reservation', () => {
    const rb = new RingBuffer(64);
    const ev = rb.reserve(8, 5)!;
    ev.bytes.fill(7, ev.offset, ev.offset + ev.length);
    rb.discard();
    expect(rb.entries).toBe(0);
    expect(rb.committed).toBe(0);
  });

  it('should let a producer fill a reservation in place', () => {
    const rb = new RingBuffer(64);
    const ev = rb.reserve(8, 99)!;
    ev.view.setUint32(ev.offset, 0xdeadbeef, true);
    rb.commit();
    const out = new RingBufferEvent();
    expect(rb.consume(out)).toBe(true);
    expect(out.view.getUint32(out.offset, true)).toBe(0xdeadbeef);
    expect(out.ts).toBe(99);
  });

  it('should refuse a second reservation before the first is committed', () => {
    const rb = new RingBuffer(64);
    rb.reserve(4, 0);
    expect(() => rb.reserve(4, 0)).toThrow(/not committed/);
  });

  it('should clear contents and counters on reset and resize', () => {
    const rb = new RingBuffer(64);
    for (let i = 1; i <= 5; i++) rb.write(i, payload(i));
    rb.reset();
    expect([rb.entries, rb.overrun, rb.committed]).toEqual([0, 0, 0]);
    rb.write(1, payload(1));
    rb.resize(128);
    expect(rb.capacity).toBe(128);
    expect(rb.entries).toBe(0);
    for (let i = 1; i <= 6; i++) rb.write(i, payload(i));
    expect(rb.entries).toBe(6);
  });

  it('should keep exactly the newest records, intact and in order, for any write/consume mix', () => {
    // Model: every record ever written has a sequence number; the buffer must hold a contiguous
    // suffix of the unconsumed ones, and entries + overrun + read must equal written.
    const op = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), length: fc.integer({ min: 0, max: 40 }) }),
      fc.record({ kind: fc.constant('consume' as const), length: fc.constant(0) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 16, max: 40 }), fc.array(op, { maxLength: 200 }), (quarterKb, ops) => {
        const rb = new RingBuffer(quarterKb * 4);
        let seq = 0;
        let lastConsumed = -1;
        const out = new RingBufferEvent();
        for (const o of ops) {
          if (o.kind === 'write') {
            if (rbEventSize(o.length) > rb.capacity) continue;
            rb.write(seq, payload(seq, o.length));
            seq++;
          } else if (rb.consume(out)) {
            expect(out.ts).toBeGreaterThan(lastConsumed);
            expect(out.ts - lastConsumed - 1).toBe(out.lost);
            for (let i = 0; i < out.length; i++) expect(out.bytes[out.offset + i]).toBe(out.ts & 0xff);
            lastConsumed = out.ts;
          }
          const s = rb.stats();
          expect(s.entries + s.overrun + s.readEvents).toBe(seq);
          expect(s.bytes).toBeLessThanOrEqual(rb.capacity);
        }
        const rest = drain(rb).map(([ts]) => ts);
        const expected = Array.from({ length: rest.length }, (_, i) => seq - rest.length + i);
        expect(rest).toEqual(expected);
      }),
      { numRuns: Number(process.env.INT3_FUZZ_RUNS ?? 200) },
    );
  });
});
