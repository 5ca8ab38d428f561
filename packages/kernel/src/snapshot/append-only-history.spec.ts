import { describe, expect, it } from 'vitest';
import { AppendOnlyHistory } from './append-only-history.js';

const upTo = (n: number, from = 0) => Array.from({ length: n - from }, (_, i) => from + i);

describe(AppendOnlyHistory, () => {
  it('should restore exactly the items of a save, earlier or later, after any appends', () => {
    const items: number[] = [];
    const h = new AppendOnlyHistory(items);
    items.push(...upTo(1500));
    const early = h.save();
    items.push(...upTo(5000, 1500));
    const late = h.save();
    h.restore(early);
    expect(items).toEqual(upTo(1500));
    items.push(-1, -2);
    const forked = h.save();
    h.restore(late);
    expect(items).toEqual(upTo(5000));
    h.restore(forked);
    expect(items).toEqual([...upTo(1500), -1, -2]);
    items.push(...upTo(3000, 1502));
    expect(h.save().chunks.flat()).toEqual([...upTo(1500), -1, -2, ...upTo(2048, 1502)]);
  });

  it('should share full chunks between saves, each save holding less than one chunk of its own', () => {
    const items: number[] = [];
    const h = new AppendOnlyHistory(items);
    items.push(...upTo(10_000));
    const a = h.save();
    items.push(...upTo(20_000, 10_000));
    const b = h.save();
    expect(a.chunks.length).toBeGreaterThan(5);
    for (let k = 0; k < a.chunks.length; k++) expect(b.chunks[k]).toBe(a.chunks[k]);
    for (const s of [a, b]) {
      expect(s.tail.length).toBeLessThan(1024);
      expect([...s.chunks.flat(), ...s.tail]).toEqual(upTo(s === a ? 10_000 : 20_000));
    }
  });
});
