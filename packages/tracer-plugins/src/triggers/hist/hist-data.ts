import type { FieldDescriptor } from '../../events/trace-event-type.js';
import { escapeTraceBytes } from '../../trace-output/escape-control.js';
import { TraceFsError } from '../../tracefs/trace-fs-error.js';
import type { TriggerHit } from '../event-trigger.js';
import { type HistField, HistFieldFlag, histFieldName, parseHistField } from './hist-field.js';
import { type HistErr, type HistTriggerAttrs, TRACING_MAP_BITS_DEFAULT } from './hist-trigger-attrs.js';

/** Limits of a hist trigger. @see kernel/trace/tracing_map.h */
export const TRACING_MAP_VALS_MAX = 3;
export const TRACING_MAP_KEYS_MAX = 3;
export const TRACING_MAP_SORT_KEYS_MAX = 2;
/** Bytes a string key takes. @see MAX_FILTER_STR_VAL */
const MAX_FILTER_STR_VAL = 256;
/** The most key bytes: a string plus a stack trace. @see HIST_KEY_SIZE_MAX */
const HIST_KEY_SIZE_MAX = MAX_FILTER_STR_VAL + 16 * 8;

/** A sort key: an index into the sums (below `nVals`) or the keys (from `nVals` on). */
export interface HistSortKey {
  readonly idx: number;
  readonly descending: boolean;
}

/** One entry of the map: its key values, its sums (hitcount first) and, for `.execname`, the comm. */
export interface HistElt {
  readonly keys: (bigint | string)[];
  readonly sums: bigint[];
  readonly comm: string;
}

const U64 = (v: bigint) => BigInt.asUintN(64, v);

function fail(message: string): never {
  throw new TraceFsError('EINVAL', `hist: ${message}`);
}

/** `ilog2(roundup_pow_of_two(v))`, with 0 and 1 in bucket 0. */
function log2Bucket(v: bigint): bigint {
  let bits = 0n;
  while (1n << bits < v) bits++;
  return bits;
}

/** A {@link HistData}'s table at a machine snapshot. */
export interface HistDataState {
  readonly entries: readonly (readonly [string, HistElt])[];
  readonly hits: bigint;
  readonly drops: bigint;
}

function copyElt(elt: HistElt): HistElt {
  return { keys: [...elt.keys], sums: [...elt.sums], comm: elt.comm };
}

/**
 * One hist trigger's histogram (`struct hist_trigger_data` and its `tracing_map`): the value fields
 * (hitcount first), the key fields, the sort keys, and the map of entries with its Hits and Dropped
 * counters. At most `1 << mapBits` entries; a hit that needs one more is dropped.
 *
 * @see kernel/trace/trace_events_hist.c create_hist_data(), event_hist_trigger(), hist_trigger_elt_update()
 * @see kernel/trace/tracing_map.c tracing_map_insert()
 * @example
 * const h = HistData.create(attrs, ev.type.fields, err);
 * h.update(hit, (pid) => comm);
 */
export class HistData {
  readonly entries = new Map<string, HistElt>();
  hits = 0n;
  drops = 0n;

  /** The table and its counters, copied, for a machine snapshot. */
  save(): HistDataState {
    return Object.freeze({
      entries: Object.freeze([...this.entries].map(([key, elt]) => Object.freeze([key, copyElt(elt)] as const))),
      hits: this.hits,
      drops: this.drops,
    });
  }

  /** Puts back what {@link save} returned (copied again: a snapshot may be restored many times). */
  restore(s: HistDataState): void {
    this.entries.clear();
    for (const [key, elt] of s.entries) this.entries.set(key, copyElt(elt));
    this.hits = s.hits;
    this.drops = s.drops;
  }

  private constructor(
    readonly attrs: HistTriggerAttrs,
    readonly vals: readonly HistField[],
    readonly keys: readonly HistField[],
    readonly sortKeys: readonly HistSortKey[],
    readonly mapBits: number,
  ) {}

  /** Timestamps are in µs when any field asked for `common_timestamp.usecs`. */
  get tsInUsecs(): boolean {
    return [...this.vals, ...this.keys].some(
      (f) => f.flags & HistFieldFlag.TIMESTAMP && f.flags & HistFieldFlag.TIMESTAMP_USECS,
    );
  }

  /** True when a field reads `common_timestamp` (the trigger then prints `:clock=global`). */
  get enableTimestamps(): boolean {
    return [...this.vals, ...this.keys].some((f) => f.flags & HistFieldFlag.TIMESTAMP);
  }

  /**
   * Builds the fields from the attributes: values (hitcount implicit and first, at most
   * {@link TRACING_MAP_VALS_MAX} with it), keys (at most {@link TRACING_MAP_KEYS_MAX}), sort keys (at
   * most two; default hitcount ascending). Errors are logged through `err` and thrown as EINVAL (or
   * ENOENT for `nohitcount` without a value).
   *
   * @see kernel/trace/trace_events_hist.c create_val_fields(), create_key_fields(), create_sort_keys()
   */
  static create(attrs: HistTriggerAttrs, fields: readonly FieldDescriptor[], err: HistErr): HistData {
    const vals: HistField[] = [{ flags: HistFieldFlag.HITCOUNT, field: undefined, buckets: 0 }];
    let sawHitcount = false;
    for (const text of attrs.vals === undefined ? [] : attrs.vals.split(',')) {
      if (text === 'hitcount' && !sawHitcount) {
        sawHitcount = true;
        continue;
      }
      if (vals.length === TRACING_MAP_VALS_MAX) fail(`at most ${TRACING_MAP_VALS_MAX - 1} values besides hitcount`);
      const f = parseHistField(text, fields, 0);
      if ('code' in f) {
        err(f.code, f.at);
        fail(`bad value '${text}'`);
      }
      const banned = HistFieldFlag.LOG2 | HistFieldFlag.BUCKET | HistFieldFlag.SYM | HistFieldFlag.SYM_OFFSET;
      if (f.flags & banned) {
        err('BAD_FIELD_MODIFIER', text);
        fail(`a value takes no '${text.slice(text.indexOf('.') + 1)}' modifier`);
      }
      if (f.flags & HistFieldFlag.STRING) fail(`a string field ('${text}') cannot be summed`);
      vals.push(f);
    }
    if (vals.length === 1 && attrs.noHitcount) {
      err('NEED_NOHC_VAL');
      throw new TraceFsError('ENOENT', "hist: 'nohitcount' needs a value other than hitcount");
    }
    const keys: HistField[] = [];
    let keySize = 0;
    for (const text of (attrs.keys ?? '').split(',')) {
      if (keys.length === TRACING_MAP_KEYS_MAX) fail(`at most ${TRACING_MAP_KEYS_MAX} keys`);
      if (text === 'stacktrace' || text === 'common_stacktrace') fail('stacktrace keys are not supported');
      const f = parseHistField(text, fields, HistFieldFlag.KEY);
      if ('code' in f) {
        err(f.code, f.at);
        fail(`bad key '${text}'`);
      }
      keySize += f.flags & HistFieldFlag.STRING ? MAX_FILTER_STR_VAL : 8;
      if (keySize > HIST_KEY_SIZE_MAX) fail('the keys are too large');
      keys.push(f);
    }
    const sortKeys = createSortKeys(attrs.sort, vals, keys, err);
    return new HistData(attrs, vals, keys, sortKeys, attrs.mapBits ?? TRACING_MAP_BITS_DEFAULT);
  }

  /** The map's capacity. */
  get maxEntries(): number {
    return 1 << this.mapBits;
  }

  /**
   * Adds one hit: reads the keys from the record (`log2` and `buckets` applied), finds or makes the
   * entry (dropped when the map is full), and adds each value to its sum.
   *
   * @see kernel/trace/trace_events_hist.c event_hist_trigger(), hist_trigger_elt_update()
   */
  update(hit: TriggerHit, comm: (pid: number) => string): void {
    const rec = hit.rec;
    const view = hit.view;
    if (rec === undefined || view === undefined) return;
    const keyValues: (bigint | string)[] = [];
    for (const k of this.keys) keyValues.push(this.#read(k, hit, rec, view));
    const id = keyValues.map(String).join('\u0000');
    let elt = this.entries.get(id);
    if (elt === undefined) {
      if (this.entries.size >= this.maxEntries) {
        this.drops++;
        return;
      }
      elt = { keys: keyValues, sums: this.vals.map(() => 0n), comm: hit.pid === 0 ? '<idle>' : comm(hit.pid) };
      this.entries.set(id, elt);
    }
    this.hits++;
    for (let i = 0; i < this.vals.length; i++) {
      const v = this.vals[i];
      elt.sums[i] = U64(elt.sums[i] + (i === 0 ? 1n : (this.#read(v, hit, rec, view) as bigint)));
    }
  }

  /** `:clear`: every entry and both counters go. @see tracing_map_clear() */
  clear(): void {
    this.entries.clear();
    this.hits = 0n;
    this.drops = 0n;
  }

  #read(f: HistField, hit: TriggerHit, rec: Uint8Array, view: DataView): bigint | string {
    const o = hit.offset;
    let v: bigint;
    if (f.flags & HistFieldFlag.TIMESTAMP) {
      v = BigInt(Math.floor(hit.ts));
      if (this.tsInUsecs) v /= 1000n;
    } else if (f.flags & HistFieldFlag.CPU) v = BigInt(hit.cpu);
    else if (f.flags & HistFieldFlag.HITCOUNT) v = 1n;
    else {
      const d = f.field as FieldDescriptor;
      if (d.kind === 'string') {
        const loc = view.getUint32(o + d.offset, true);
        const start = o + (loc & 0xffff);
        let end = start + (loc >>> 16);
        while (end > start && rec[end - 1] === 0) end--;
        return escapeTraceBytes(rec, start, Math.min(end, start + MAX_FILTER_STR_VAL - 1));
      }
      v = readInt(view, o + d.offset, d.size, d.signed);
    }
    if (f.flags & HistFieldFlag.LOG2) return log2Bucket(v);
    if (f.flags & HistFieldFlag.BUCKET) return (v / BigInt(f.buckets)) * BigInt(f.buckets);
    return v;
  }
}

/** An integer field as the kernel's hist field functions read it: widened to u64 (signed ones sign-extended). */
function readInt(view: DataView, at: number, size: number, signed: boolean): bigint {
  switch (size) {
    case 1:
      return U64(BigInt(signed ? view.getInt8(at) : view.getUint8(at)));
    case 2:
      return U64(BigInt(signed ? view.getInt16(at, true) : view.getUint16(at, true)));
    case 4:
      return U64(BigInt(signed ? view.getInt32(at, true) : view.getUint32(at, true)));
    default:
      return view.getBigUint64(at, true);
  }
}

/**
 * `sort=a[.descending],b`: each name must be hitcount, a value or a key (matched by name, modifiers
 * ignored); default hitcount ascending.
 *
 * @see kernel/trace/trace_events_hist.c create_sort_keys(), is_descending()
 */
function createSortKeys(
  text: string | undefined,
  vals: readonly HistField[],
  keys: readonly HistField[],
  err: HistErr,
): HistSortKey[] {
  if (text === undefined) return [{ idx: 0, descending: false }];
  const out: HistSortKey[] = [];
  const parts = text.split(',');
  for (let i = 0; i < parts.length; i++) {
    const s = parts[i];
    if (s === '') {
      err('EMPTY_SORT_FIELD', 'sort=');
      fail('empty sort field');
    }
    if (i === TRACING_MAP_SORT_KEYS_MAX) {
      err('TOO_MANY_SORT_FIELDS', 'sort=');
      fail(`at most ${TRACING_MAP_SORT_KEYS_MAX} sort fields`);
    }
    const dot = s.indexOf('.');
    const name = dot < 0 ? s : s.slice(0, dot);
    const mod = dot < 0 ? undefined : s.slice(dot + 1);
    if (name === '') {
      err('EMPTY_SORT_FIELD', 'sort=');
      fail('empty sort field');
    }
    let descending = false;
    if (mod !== undefined) {
      if (mod === 'descending') descending = true;
      else if (mod !== 'ascending') {
        err('INVALID_SORT_MODIFIER', mod);
        fail(`bad sort modifier '${mod}'`);
      }
    }
    if (name === 'hitcount') {
      out.push({ idx: 0, descending });
      continue;
    }
    const all = [...vals, ...keys];
    const idx = all.findIndex((f, j) => j > 0 && histFieldName(f) === name);
    if (idx < 0) {
      err('INVALID_SORT_FIELD', name);
      fail(`sort field '${name}' is neither a key nor a value`);
    }
    out.push({ idx, descending });
  }
  return out;
}
