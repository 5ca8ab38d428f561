import { describe, expect, it } from 'vitest';
import { linearBucketIndex, log2BucketEnd, log2BucketIndex } from './hist-buckets.js';

describe(log2BucketIndex, () => {
  it('should put each value in the bucket whose bounds hold it, for k = 0 to 3, up to 2^64 - 1', () => {
    const values = [
      0n,
      1n,
      2n,
      3n,
      4n,
      7n,
      8n,
      1023n,
      1024n,
      2n ** 32n - 1n,
      2n ** 32n,
      2n ** 53n - 1n,
      2n ** 53n,
      2n ** 63n,
      2n ** 64n - 1n,
    ];
    for (let k = 0; k <= 3; k++) {
      for (const v of values) {
        const i = log2BucketIndex(v, k);
        const lo = i === 1 ? 0n : log2BucketEnd(i - 1, k).value;
        expect(v >= lo && v < log2BucketEnd(i, k).value, `v=${v} k=${k} i=${i}`).toBe(true);
      }
    }
    expect(log2BucketIndex(-5n, 0)).toBe(0);
  });

  it('should label buckets with bpftrace suffixes', () => {
    expect([3, 11, 12, 65].map((i) => log2BucketEnd(i, 0).label)).toEqual(['4', '1K', '2K', '16E']);
  });
});

describe(linearBucketIndex, () => {
  it('should put values below min first and max and above last', () => {
    expect([-1n, 0n, 9n, 10n, 99n, 100n, 5000n].map((v) => linearBucketIndex(v, 0, 100, 10))).toEqual([
      0, 1, 1, 2, 10, 11, 11,
    ]);
  });
});
