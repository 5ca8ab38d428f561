/** Aggregation kinds, each a map value type of its own (`count_t`, `hist_t`, …). */
export type AggregationKind = 'count' | 'sum' | 'avg' | 'min' | 'max' | 'stats' | 'hist' | 'lhist';

/**
 * A bpftrace value type: sized integers, bool, fixed-size strings, tuples, kernel symbols and stacks,
 * pointers (from a cast), the aggregations, and `none` (what `printf` returns).
 *
 * @see bpftrace src/types.h SizedType
 */
export type BpfType =
  | { readonly k: 'int'; readonly bits: 8 | 16 | 32 | 64; readonly signed: boolean }
  | { readonly k: 'bool' }
  | { readonly k: 'string'; readonly size: number }
  | { readonly k: 'tuple'; readonly elems: readonly BpfType[] }
  | { readonly k: 'ksym' }
  | { readonly k: 'kstack' }
  | { readonly k: 'ptr'; readonly to: BpfType }
  | { readonly k: 'agg'; readonly agg: AggregationKind; readonly signed: boolean }
  | { readonly k: 'none' };

export const UINT64: BpfType = Object.freeze({ k: 'int', bits: 64, signed: false });
export const INT64: BpfType = Object.freeze({ k: 'int', bits: 64, signed: true });
export const UINT32: BpfType = Object.freeze({ k: 'int', bits: 32, signed: false });
export const BOOL: BpfType = Object.freeze({ k: 'bool' });
export const NONE: BpfType = Object.freeze({ k: 'none' });

/** The smallest signed type that holds a literal (uint64 above int64's range), as bpftrace types literals. */
export function literalType(v: bigint): BpfType {
  for (const bits of [8, 16, 32, 64] as const) {
    const lim = 1n << BigInt(bits - 1);
    if (v >= -lim && v < lim) return { k: 'int', bits, signed: true };
  }
  return UINT64;
}

/** The name bpftrace's messages give a type: `int8`, `uint64`, `string[3]`, `(int8,string[2])`, `count_t`. */
export function typeName(t: BpfType): string {
  switch (t.k) {
    case 'int':
      return `${t.signed ? '' : 'u'}int${t.bits}`;
    case 'bool':
      return 'bool';
    case 'string':
      return `string[${t.size}]`;
    case 'tuple':
      return `(${t.elems.map(typeName).join(',')})`;
    case 'ksym':
      return 'ksym_t';
    case 'kstack':
      return 'kstack_bpftrace_127';
    case 'ptr':
      return `${typeName(t.to)} *`;
    case 'agg':
      if (t.agg === 'sum' || t.agg === 'avg' || t.agg === 'min' || t.agg === 'max' || t.agg === 'stats') {
        return `${t.signed ? '' : 'u'}${t.agg}_t`;
      }
      return `${t.agg}_t`;
    case 'none':
      return 'none';
  }
}

/** Whether values of `a` and `b` can share a variable, map value or map key (integers of any width do). */
export function compatible(a: BpfType, b: BpfType): boolean {
  if (a.k !== b.k) return false;
  if (a.k === 'tuple' && b.k === 'tuple') {
    return a.elems.length === b.elems.length && a.elems.every((e, i) => compatible(e, b.elems[i]));
  }
  if (a.k === 'agg' && b.k === 'agg') return a.agg === b.agg;
  return true;
}

/** The type that holds values of both (wider integer, longer string). */
export function widen(a: BpfType, b: BpfType): BpfType {
  if (a.k === 'int' && b.k === 'int') {
    if (b.bits > a.bits) return b;
    if (a.bits > b.bits) return a;
    return a.signed && b.signed ? a : { k: 'int', bits: a.bits, signed: false };
  }
  if (a.k === 'string' && b.k === 'string') return b.size > a.size ? b : a;
  if (a.k === 'tuple' && b.k === 'tuple') return { k: 'tuple', elems: a.elems.map((e, i) => widen(e, b.elems[i])) };
  return a;
}

/** Integer types and bool count as integers in arithmetic and comparisons. */
export function isInteger(t: BpfType): boolean {
  return t.k === 'int' || t.k === 'bool' || t.k === 'ptr';
}

/** Whether an aggregation reads as an integer (`@x > 0` on a count): all but the histograms and stats. */
export function isIntegerAggregation(t: BpfType): boolean {
  return t.k === 'agg' && t.agg !== 'hist' && t.agg !== 'lhist' && t.agg !== 'stats';
}
