import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MachineSnapshot } from '../snapshot/machine-snapshot.js';
import { type SessionSnapshot, SnapshotTimeline } from './snapshot-timeline.js';

/** A snapshot at `clockNs` with `entries` log entries (the machine part is never looked at here). */
const at = (clockNs: number, entries = clockNs): SessionSnapshot => ({
  entries,
  inputs: 0,
  resume: undefined,
  spawned: [],
  lastRun: undefined,
  clockNs,
  machine: {} as MachineSnapshot,
});

/** Offers a snapshot at every `stepNs` from 0 to `untilNs`, as a session does at its stop points. */
function offerEvery(t: SnapshotTimeline, stepNs: number, untilNs: number): void {
  for (let ns = 0; ns <= untilNs; ns += stepNs) if (t.wants(ns)) t.add(at(ns));
}

describe(SnapshotTimeline, () => {
  it('should keep a pinned snapshot in a bucket that has one, and through every thinning', () => {
    const t = new SnapshotTimeline(1_000, 8);
    t.add(at(0));
    const pinned = { ...at(10, 3), pinned: true };
    expect(t.wants(10)).toBe(false);
    t.add(pinned);
    offerEvery(t, 1_000, 10_000_000);
    expect(t.all()[0].clockNs).toBe(0);
    expect(t.all()[1]).toEqual(pinned);
    expect(t.all().length).toBeLessThanOrEqual(9);
  });

  it('should keep at most its capacity however many snapshots are offered', () => {
    const t = new SnapshotTimeline(1_000, 8);
    offerEvery(t, 1_000, 10_000_000);
    expect(t.all().length).toBeLessThanOrEqual(8);
    expect(t.all().length).toBeGreaterThanOrEqual(4);
  });

  it('should keep the origin and spread the others evenly over the whole run', () => {
    const t = new SnapshotTimeline(1_000, 16);
    const end = 3_000_000;
    offerEvery(t, 1_000, end);
    const clocks = t.all().map((s) => s.clockNs);
    expect(clocks[0]).toBe(0);
    expect(t.spacingNs).toBeLessThanOrEqual((2 * end) / (16 - 1));
    const gaps = clocks.slice(1).map((c, i) => c - clocks[i]);
    expect(Math.max(...gaps, end - clocks[clocks.length - 1])).toBeLessThan(2 * t.spacingNs);
  });

  it('should hold at most one snapshot per spacing, refusing a second one in the same span', () => {
    const t = new SnapshotTimeline(1_000, 64);
    t.add(at(0));
    expect(t.wants(999)).toBe(false);
    t.add(at(999));
    expect(t.all().map((s) => s.clockNs)).toEqual([0]);
    expect(t.wants(1_000)).toBe(true);
  });

  it('should keep the origin only with an infinite spacing', () => {
    const t = new SnapshotTimeline(Number.POSITIVE_INFINITY, 2);
    offerEvery(t, 1_000_000, 100_000_000);
    expect(t.all().map((s) => s.clockNs)).toEqual([0]);
  });

  it('should find the latest snapshot taken when at most n entries existed', () => {
    const t = new SnapshotTimeline(1, 8);
    for (const [clock, entries] of [
      [0, 1],
      [5, 4],
      [9, 9],
    ])
      t.add(at(clock, entries));
    expect(t.latestBefore(0)).toBeUndefined();
    expect(t.latestBefore(3)?.entries).toBe(1);
    expect(t.latestBefore(4)?.entries).toBe(4);
    expect(t.latestBefore(100)?.entries).toBe(9);
  });

  it('should refuse snapshots out of log or virtual-time order, and a capacity below 2', () => {
    const t = new SnapshotTimeline(1, 8);
    t.add(at(10, 10));
    expect(() => t.add(at(20, 5))).toThrow('snapshots must come in log and virtual-time order');
    expect(() => t.add(at(5, 20))).toThrow('snapshots must come in log and virtual-time order');
    expect(() => new SnapshotTimeline(1, 1)).toThrow('capacity 1 must be an integer of at least 2');
    expect(() => new SnapshotTimeline(0)).toThrow('spacing 0 ns must be positive');
  });

  it('should stay within capacity, in order, with its origin, for any offers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.array(fc.integer({ min: 0, max: 50_000 }), { maxLength: 400 }),
        (capacity, spacing, steps) => {
          const t = new SnapshotTimeline(spacing, capacity);
          let clock = 0;
          for (const [i, step] of steps.entries()) {
            clock += step;
            if (t.wants(clock)) t.add(at(clock, i));
          }
          const kept = t.all();
          expect(kept.length).toBeLessThanOrEqual(capacity);
          if (steps.length > 0) expect(kept[0].entries).toBe(0);
          for (let i = 1; i < kept.length; i++) {
            expect(Math.floor(kept[i].clockNs / t.spacingNs)).toBeGreaterThan(
              Math.floor(kept[i - 1].clockNs / t.spacingNs),
            );
          }
        },
      ),
    );
  });
});
