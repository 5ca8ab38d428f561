/**
 * bpftrace's power-of-two histogram with `2^k` buckets per power (`hist(v, k)`, k = 0 by default):
 * bucket 0 holds negative values, buckets 1…2^(k+1) one value each (0, 1, …), and then each power of
 * two `[2^p, 2^(p+1))` is split into 2^k buckets. {@link log2BucketEnd} gives a bucket's exclusive
 * upper bound, which is also how bpftrace labels it.
 *
 * @see bpftrace src/types_format.cpp hist_index_label(), build_histogram()
 */
export function log2BucketCount(k: number): number {
  return ((65 - k) << k) + 2;
}

/** The bucket `v` falls in. */
export function log2BucketIndex(v: bigint, k: number): number {
  if (v < 0n) return 0;
  const n = 1 << k;
  if (v < BigInt(2 * n)) return Number(v) + 1;
  const p = bitLength(v) - 1;
  const interval = Number(v >> BigInt(p - k)) - n;
  return ((p - k + 1) << k) + interval + 1;
}

/** Bits of a positive value, without allocating below 2^53 (where a double is exact). */
function bitLength(v: bigint): number {
  const n = Number(v);
  if (n < 4294967296) return 32 - Math.clz32(n);
  if (n < 9007199254740992) return 64 - Math.clz32(Math.floor(n / 4294967296));
  return v.toString(2).length;
}

/** A bucket's exclusive upper bound (`i ≥ 1`) as a number, and its label (`4`, `1K`, `16E`). */
export function log2BucketEnd(i: number, k: number): { readonly value: bigint; readonly label: string } {
  const n = 1 << k;
  if (i <= 2 * n) return { value: BigInt(i), label: String(i) };
  const interval = i & (n - 1);
  let power = (i >> k) - 1;
  const value = (1n << BigInt(power)) * BigInt(n + interval);
  const decade = Math.floor(power / 10);
  power -= 10 * decade;
  const label = `${(1n << BigInt(power)) * BigInt(n + interval)}${['', 'K', 'M', 'G', 'T', 'P', 'E'][decade] ?? ''}`;
  return { value, label };
}

/** `lhist(v, min, max, step)`'s buckets: below min, `(max − min) / step` of width step, and max and above. */
export function linearBucketCount(min: number, max: number, step: number): number {
  return Math.floor((max - min) / step) + 2;
}

/** The linear bucket `v` falls in. */
export function linearBucketIndex(v: bigint, min: number, max: number, step: number): number {
  if (v < BigInt(min)) return 0;
  if (v >= BigInt(max)) return Math.floor((max - min) / step) + 1;
  return Number((v - BigInt(min)) / BigInt(step)) + 1;
}

/** A linear bucket boundary's label: K or M suffixes only when the step is a multiple of 1024. */
export function linearLabel(value: number, step: number): string {
  if (step % 1024 !== 0 || value === 0) return String(value);
  if (value % (1024 * 1024) === 0) return `${value / (1024 * 1024)}M`;
  if (value % 1024 === 0) return `${value / 1024}K`;
  return String(value);
}

/** One printed bucket: its lower bound (undefined: below everything) and upper bound (undefined: above). */
export interface HistRow {
  readonly lo: { readonly value: bigint; readonly label: string } | undefined;
  readonly hi: { readonly value: bigint; readonly label: string } | undefined;
  readonly count: number;
}

/** The rows bpftrace prints for a log2 histogram: first to last non-empty bucket; none when all are empty. */
export function log2Rows(counts: ArrayLike<number>, k: number, div = 1): HistRow[] {
  const [first, last] = nonEmpty(counts);
  const rows: HistRow[] = [];
  if (first < 0) return rows;
  let lo = first === 0 ? undefined : first - 1 <= 2 << k ? direct(first - 1) : log2BucketEnd(first - 1, k);
  for (let i = first; i <= last; i++) {
    const hi = i === 0 ? direct(0) : log2BucketEnd(i, k);
    rows.push({ lo, hi, count: Math.floor(counts[i] / div) });
    lo = hi;
  }
  return rows;
}

/** The rows of a linear histogram, as {@link log2Rows}. */
export function linearRows(counts: ArrayLike<number>, min: number, max: number, step: number): HistRow[] {
  const [first, last] = nonEmpty(counts);
  const rows: HistRow[] = [];
  if (first < 0) return rows;
  const at = (v: number) => ({ value: BigInt(v), label: linearLabel(v, step) });
  let lo = first === 0 ? undefined : at(min + (first - 1) * step);
  for (let i = first; i <= last; i++) {
    const end = min + i * step;
    const hi = end <= max ? at(end) : undefined;
    rows.push({ lo, hi, count: counts[i] });
    lo = hi;
  }
  return rows;
}

function direct(v: number) {
  return { value: BigInt(v), label: String(v) };
}

function nonEmpty(counts: ArrayLike<number>): [number, number] {
  let first = -1;
  let last = -1;
  for (let i = 0; i < counts.length; i++) {
    if (counts[i] > 0) {
      if (first < 0) first = i;
      last = i;
    }
  }
  return [first, last];
}
