import { LazyOp } from '../lazy-flags.js';

/** A value of the lazy-flag record, by what it holds (the `l*` field of CpuState is `l` + this, bar two). */
export type LazyKey = 'op' | 'size' | 'dl' | 'dh' | 'sl' | 'sh' | 'rl' | 'rh' | 'cf' | 'of';

/** One field of the lazy-flag record: CpuState's name for it, the compiler's local, and its start value. */
export interface LazyField {
  readonly key: LazyKey;
  /** CpuState's field. */
  readonly field: string;
  /** The generated region's local holding it until the region's state is written back. */
  readonly local: string;
  /** CpuState's initial value. */
  readonly init: number;
}

/**
 * The lazy-flag record, in CpuState's order: the kind (LazyOp), the operand size, both operands'
 * and the result's int32 halves, the carry in (add/sub kinds) or the kept CF (inc/dec) or the known
 * CF (the result kind), and the known OF (the result kind). The one layout that CpuState declares
 * and stores (its generated part), the interpreter's dispatch stores inline, and the compiler keeps
 * in locals and writes back.
 */
export const LAZY_FIELDS: readonly LazyField[] = [
  { key: 'op', field: 'lop', local: 'fo', init: LazyOp.None },
  { key: 'size', field: 'lsz', local: 'fz', init: 4 },
  { key: 'dl', field: 'ldl', local: 'fdl', init: 0 },
  { key: 'dh', field: 'ldh', local: 'fdh', init: 0 },
  { key: 'sl', field: 'lsl', local: 'fsl', init: 0 },
  { key: 'sh', field: 'lsh', local: 'fsh', init: 0 },
  { key: 'rl', field: 'lrl', local: 'frl', init: 0 },
  { key: 'rh', field: 'lrh', local: 'frh', init: 0 },
  { key: 'cf', field: 'lcf', local: 'fc', init: 0 },
  { key: 'of', field: 'lof', local: 'ff', init: 0 },
];

const OPERANDS: readonly LazyKey[] = ['size', 'dl', 'dh', 'sl', 'sh', 'rl', 'rh'];

/**
 * The fields a record of each kind must hold: what CpuState's flag getters and `cond` read for it
 * (lazy-record.spec.ts checks this by watching them read). A record stores these and no others.
 */
export const LAZY_READS: Readonly<Record<number, readonly LazyKey[]>> = {
  [LazyOp.Add]: [...OPERANDS, 'cf'],
  [LazyOp.Sub]: [...OPERANDS, 'cf'],
  [LazyOp.Logic]: ['size', 'rl', 'rh'],
  [LazyOp.Inc]: [...OPERANDS, 'cf'],
  [LazyOp.Dec]: [...OPERANDS, 'cf'],
  [LazyOp.Result]: ['size', 'rl', 'rh', 'cf', 'of'],
  [LazyOp.Imul]: OPERANDS,
};

/** A record's values as source text, by key (`op` included when the record sets the kind). */
export type LazyValues = Partial<Readonly<Record<LazyKey, string>>>;

/** Per kind, the fields its record stores without a kind: LAZY_FIELDS in order, filtered by LAZY_READS. */
const STORED: ReadonlyMap<number, readonly LazyField[]> = new Map(
  Object.entries(LAZY_READS).map(([kind, reads]) => [Number(kind), LAZY_FIELDS.filter((f) => reads.includes(f.key))]),
);

function stored(kind: number): readonly LazyField[] {
  const fields = STORED.get(kind);
  if (fields === undefined) throw new Error(`int3 semantics: lazy kind ${kind} records nothing`);
  return fields;
}

/**
 * The statements storing a record of kind `kinds` (one kind, or every kind a run-time `op` may be:
 * then the union of their fields) into `target(field)`, in the table's order: the fields the kinds
 * read, each of which `v` must give, and `op` when `v` gives it.
 */
export function lazyStore(
  kinds: number | readonly number[],
  v: LazyValues,
  target: (f: LazyField) => string,
): string[] {
  const fields =
    typeof kinds === 'number' ? stored(kinds) : LAZY_FIELDS.filter((f) => kinds.some((k) => stored(k).includes(f)));
  // The kind comes first in the table, then the fields in its order.
  const out: string[] = v.op === undefined ? [] : [`${target(LAZY_FIELDS[0])} = ${v.op};`];
  for (const f of fields) {
    const x = v[f.key];
    if (x === undefined) throw new Error(`int3 semantics: a lazy record of kind ${kinds} needs ${f.key}`);
    out.push(`${target(f)} = ${x};`);
  }
  return out;
}

/** The compiler's flag locals, declared (the kind's local starts at -1: nothing to write back). */
export function lazyLocals(): string {
  return `let ${LAZY_FIELDS.map((f) => `${f.local} = ${f.key === 'op' ? -1 : 0}`).join(', ')};`;
}

/** The compiler's write-back of its flag locals into `cpu`'s record, when a writer set them. */
export function lazyFlush(cpu: string): string {
  const op = LAZY_FIELDS[0].local;
  return `if (${op} !== -1) { ${LAZY_FIELDS.map((f) => `${cpu}.${f.field} = ${f.local};`).join(' ')} ${op} = -1; }`;
}
