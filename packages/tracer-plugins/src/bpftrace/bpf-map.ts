import type { AggregationKind, BpfType } from './bpftrace-type.js';
import { linearBucketCount, log2BucketCount } from './hist-buckets.js';

/** A runtime value: integers as bigint, bool, strings, tuples and stacks as arrays. */
export type Value = bigint | boolean | string | readonly Value[];

/** What a checked program knows of one map: its key types (none: scalar), value type and aggregation. */
export interface MapInfo {
  readonly name: string;
  /** Key types; an empty list for a scalar map (`@x`). */
  keys: readonly BpfType[] | undefined;
  value: BpfType | undefined;
  /** hist's k; lhist's min, max, step. */
  args?: readonly number[];
}

/** Running state of `avg`/`stats`. */
export interface AvgState {
  count: number;
  total: bigint;
}

/** One entry: its key values (empty for a scalar map) and its value or aggregation state. */
export interface MapEntry {
  readonly key: readonly Value[];
  /** A plain value, a count (number), a sum/min/max (bigint), an {@link AvgState}, or histogram counts. */
  value: unknown;
}

/**
 * A bpftrace map: entries by key. A key's identity is the key value itself for one integer or
 * string key (no allocation on a hit of an existing key), else an encoding of the key values.
 *
 * @see bpftrace src/bpfmap.h; BPF_MAP_TYPE_HASH
 */
export class BpfMap {
  readonly entries = new Map<unknown, MapEntry>();

  constructor(readonly info: MapInfo) {}

  get name(): string {
    return this.info.name;
  }

  /** The aggregation its values are (undefined: plain values). */
  get aggregation(): AggregationKind | undefined {
    const v = this.info.value;
    return v?.k === 'agg' ? v.agg : undefined;
  }

  /** A fresh aggregation state (or the zero of a plain value), for a new entry or `zero()`. */
  initialValue(): unknown {
    const v = this.info.value;
    if (v?.k !== 'agg') return zeroOf(v);
    switch (v.agg) {
      case 'count':
        return 0;
      case 'sum':
        return 0n;
      case 'min':
      case 'max':
        return undefined;
      case 'avg':
      case 'stats':
        return { count: 0, total: 0n } satisfies AvgState;
      case 'hist':
      case 'lhist':
        return new Float64Array(histSize(this.info));
    }
  }

  /** The entry for `id`, created with `key` (copied) and the initial value when missing. */
  entry(id: unknown, key: readonly Value[]): MapEntry {
    let e = this.entries.get(id);
    if (e === undefined) {
      e = { key: key.slice(), value: this.initialValue() };
      this.entries.set(id, e);
    }
    return e;
  }
}

/** A key's identity for {@link BpfMap.entries}. */
export function keyId(key: readonly Value[]): unknown {
  if (key.length === 0) return 0;
  if (key.length === 1 && (typeof key[0] === 'bigint' || typeof key[0] === 'string')) return key[0];
  return encode(key);
}

function encode(v: Value | readonly Value[]): string {
  if (Array.isArray(v)) return `(${v.map(encode).join('\u0000,')})`;
  if (typeof v === 'string') return `s${v}`;
  return `${typeof v === 'bigint' ? 'i' : 'b'}${String(v)}`;
}

function zeroOf(t: BpfType | undefined): Value {
  if (t === undefined) return 0n;
  switch (t.k) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'tuple':
      return t.elems.map(zeroOf);
    case 'kstack':
      return [];
    default:
      return 0n;
  }
}

function histSize(info: MapInfo): number {
  const a = info.args ?? [0];
  if (info.value?.k === 'agg' && info.value.agg === 'lhist') return linearBucketCount(a[0], a[1], a[2]);
  return log2BucketCount(a[0]);
}
