/** Buckets of a 64-bit log2 histogram (+1 for the value 0). */
const BUCKETS = 65;

/**
 * `bpf_log2l()` as bcc uses it for histogram slots: 0 for 0, else ⌊log2 v⌋ + 1, so slot i holds
 * [2^(i-1), 2^i − 1].
 *
 * @see bcc src/cc/export/helpers.h bpf_log2l()
 */
export function bpfLog2l(v: number): number {
  if (v < 1) return 0;
  if (v < 0x1_0000_0000) return 32 - Math.clz32(v);
  return Math.min(BUCKETS - 1, Math.floor(Math.log2(v)) + 1);
}

/**
 * A power-of-two histogram of non-negative values (bpftrace `hist()`, bcc `BPF_HISTOGRAM` with
 * `bpf_log2l` slots), with the count and sum funclatency's summary line needs. Adding allocates nothing.
 *
 * @example
 * const h = new Log2Histogram();
 * h.add(1500); // slot 11: 1024 -> 2047
 */
export class Log2Histogram {
  // Annotated: an inferred `Float64Array<ArrayBuffer>` in the .d.ts would need TypeScript >= 5.7.
  readonly slots: Float64Array = new Float64Array(BUCKETS);
  count = 0;
  total = 0;

  add(value: number): void {
    const v = Number.isNaN(value) ? 0 : Math.max(value, 0);
    this.slots[bpfLog2l(v)]++;
    this.count++;
    this.total += v;
  }
}
