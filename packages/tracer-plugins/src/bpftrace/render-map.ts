import type { AvgState, BpfMap, MapEntry, Value } from './bpf-map.js';
import type { BpfType } from './bpftrace-type.js';
import { type HistRow, linearRows, log2Rows } from './hist-buckets.js';

/** One printed value of a map: a plain value, a `stats` record, or histogram rows. */
export type RenderedValue =
  | { readonly k: 'value'; readonly v: Value; readonly t: BpfType }
  | { readonly k: 'stats'; readonly count: bigint; readonly average: bigint; readonly total: bigint }
  | { readonly k: 'hist'; readonly rows: readonly HistRow[] };

/** A map ready to print: what kind of data it is (the JSON `type`), whether scalar, its entries in order. */
export interface RenderedMap {
  readonly name: string;
  readonly type: 'map' | 'stats' | 'hist';
  readonly scalar: boolean;
  readonly keyTypes: readonly BpfType[];
  readonly entries: readonly { readonly key: readonly Value[]; readonly value: RenderedValue }[];
}

/**
 * A map's entries in bpftrace's print order — ascending by value for integers, counts and sums, by
 * min/max, by average for avg/stats, by total count for histograms, by key otherwise (ties by key) —
 * the last `top` of them when `top > 0`, values (histogram counts, averages) divided by `div`; with
 * `zeroIfEmpty` (as `print(@x)` does) a scalar map without a value shows its zero.
 *
 * @see bpftrace src/types_format.cpp format(BPFtrace&, …, const BpfMap&, size_t top, uint32_t div)
 */
export function renderMap(map: BpfMap, top = 0, div = 1, zeroIfEmpty = false): RenderedMap {
  const agg = map.aggregation;
  const keyTypes = map.info.keys ?? [];
  const d = BigInt(div === 0 ? 1 : div);
  const all = [...map.entries.values()].filter((e) => !isEmptyMinMax(e, agg));
  all.sort((a, b) => compareKeys(a.key, b.key));
  const rank = ranker(map);
  if (rank) all.sort((a, b) => cmp(rank(a), rank(b)));
  const shown = top > 0 && all.length > top ? all.slice(all.length - top) : all;
  const type = agg === 'hist' || agg === 'lhist' ? 'hist' : agg === 'stats' || agg === 'avg' ? 'stats' : 'map';
  const valueType = map.info.value as BpfType;
  const entries = shown.map((e) => ({ key: e.key, value: renderValue(map, e, valueType, d) }));
  // print() of a scalar map never assigned shows its zero (histograms show nothing).
  if (zeroIfEmpty && entries.length === 0 && keyTypes.length === 0 && type !== 'hist') {
    entries.push({ key: [], value: renderValue(map, { key: [], value: zeroState(map) }, valueType, d) });
  }
  return { name: map.name, type, scalar: keyTypes.length === 0, keyTypes, entries };
}

function renderValue(map: BpfMap, e: MapEntry, t: BpfType, d: bigint): RenderedValue {
  const args = map.info.args ?? [0];
  switch (map.aggregation) {
    case 'count':
      return { k: 'value', v: BigInt(e.value as number) / d, t };
    case 'sum':
    case 'min':
    case 'max':
      return { k: 'value', v: (e.value as bigint) / d, t };
    case 'avg':
      return { k: 'value', v: average(e.value as AvgState) / d, t };
    case 'stats': {
      const s = e.value as AvgState;
      return { k: 'stats', count: BigInt(s.count), average: average(s) / d, total: s.total };
    }
    case 'hist':
      return { k: 'hist', rows: log2Rows(e.value as Float64Array, args[0], Number(d)) };
    case 'lhist':
      return { k: 'hist', rows: linearRows(e.value as Float64Array, args[0], args[1], args[2]) };
    default:
      return { k: 'value', v: e.value as Value, t };
  }
}

function zeroState(map: BpfMap): unknown {
  const v = map.initialValue();
  return v === undefined ? 0n : v;
}

/** C's integer division of the total by the count (0 for none). */
export function average(s: AvgState): bigint {
  return s.count === 0 ? 0n : s.total / BigInt(s.count);
}

function isEmptyMinMax(e: MapEntry, agg: string | undefined): boolean {
  return (agg === 'min' || agg === 'max') && e.value === undefined;
}

function ranker(map: BpfMap): ((e: MapEntry) => bigint | number) | undefined {
  switch (map.aggregation) {
    case 'count':
      return (e) => e.value as number;
    case 'sum':
      return (e) => e.value as bigint;
    case 'min':
    case 'max':
      // bpftrace compares min/max as unsigned.
      return (e) => BigInt.asUintN(64, e.value as bigint);
    case 'avg':
    case 'stats':
      return (e) => average(e.value as AvgState);
    case 'hist':
    case 'lhist':
      return (e) => (e.value as Float64Array).reduce((a, b) => a + b, 0);
    default: {
      const t = map.info.value;
      if (t?.k === 'int' || t?.k === 'bool') return (e) => (typeof e.value === 'bigint' ? e.value : e.value ? 1n : 0n);
      return undefined;
    }
  }
}

function cmp(a: bigint | number, b: bigint | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Keys compare element by element: integers by value, strings by bytes, tuples recursively. */
export function compareKeys(a: readonly Value[], b: readonly Value[]): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function compareValues(a: Value, b: Value): number {
  if (Array.isArray(a) && Array.isArray(b)) return compareKeys(a, b);
  if (typeof a === 'boolean' || typeof b === 'boolean') return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}
