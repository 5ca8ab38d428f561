/**
 * Kinds of deferred flag computation: the last flag-writing instruction records its operands and
 * result, and CF/PF/AF/ZF/SF/OF are derived only when something reads them. `Imul` (two- and
 * three-operand imul) records both factors so the costly overflow test (CF = OF) runs only on a read.
 * @see Intel SDM Vol. 1 §3.4.3.1 (status flags) and Appendix A (EFLAGS cross-reference)
 */
export const LazyOp = { None: 0, Add: 1, Sub: 2, Logic: 3, Inc: 4, Dec: 5, Result: 6, Imul: 7 } as const;

// Annotated: an inferred `Uint8Array<ArrayBuffer>` in the .d.ts would need TypeScript >= 5.7.
/** Even parity of each byte value (1 = PF set). */
export const PARITY: Uint8Array = new Uint8Array(256).map((_, v) => {
  let n = v;
  n ^= n >> 4;
  n ^= n >> 2;
  n ^= n >> 1;
  return (n & 1) ^ 1;
});

/** Most significant bit of a `size`-byte value held as int32 halves. */
export function msb(lo: number, hi: number, size: number): number {
  switch (size) {
    case 8:
      return hi >>> 31;
    case 4:
      return lo >>> 31;
    case 2:
      return (lo >>> 15) & 1;
    default:
      return (lo >>> 7) & 1;
  }
}

/** Value mask of a 1/2/4-byte operand. */
export function sizeMask(size: number): number {
  return size === 1 ? 0xff : size === 2 ? 0xffff : -1;
}
