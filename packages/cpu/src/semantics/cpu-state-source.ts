import { LazyOp } from '../lazy-flags.js';
import { LAZY_FIELDS, LAZY_READS, lazyStore } from './lazy-record.js';
import { indent, numbered } from './numbered.js';

/** The lines that delimit CpuState's generated part in cpu-state.ts. */
export const CPU_STATE_BEGIN =
  '  // @generated-begin: scripts/gen-dispatch.mjs writes the lazy-flag record from src/semantics/cpu-state-source.ts';
export const CPU_STATE_END = '  // @generated-end';

/** The kinds setLazy records (all but the result kind, which setResult records). */
const SET_LAZY_KINDS = [LazyOp.Add, LazyOp.Sub, LazyOp.Logic, LazyOp.Inc, LazyOp.Dec, LazyOp.Imul];

/** A method over `params` (each a number), wrapped one parameter a line as the formatter would. */
function method(name: string, params: readonly string[], body: readonly string[]): string[] {
  const head = `${name}(${params.map((p) => `${p}: number`).join(', ')}): void {`;
  const lines = head.length + 2 <= 120 ? [head] : [`${name}(`, ...params.map((p) => `  ${p}: number,`), '): void {'];
  return [...lines, ...body.map((l) => `  ${l}`), '}'];
}

/**
 * CpuState's lazy-flag record (its fields, in {@link LAZY_FIELDS}' order, and the setters the
 * executors record through) as the source text scripts/gen-dispatch.mjs writes into cpu-state.ts.
 */
export function cpuStateSource(): string {
  const fields = LAZY_FIELDS.map((f) => `${f.field} = ${f.init};`);
  const lazyParams = LAZY_FIELDS.filter(
    (f) => f.key === 'op' || SET_LAZY_KINDS.some((k) => LAZY_READS[k].includes(f.key)),
  );
  const resultParams = LAZY_FIELDS.filter((f) => LAZY_READS[LazyOp.Result].includes(f.key));
  const own = Object.fromEntries(LAZY_FIELDS.map((f) => [f.key, f.key]));
  const setLazy = method(
    'setLazy',
    lazyParams.map((f) => f.key),
    lazyStore(SET_LAZY_KINDS, own, (f) => `this.${f.field}`),
  );
  const setResult = method(
    'setResult',
    resultParams.map((f) => f.key),
    lazyStore(LazyOp.Result, { ...own, op: '#LazyOp.Result' }, (f) => `this.${f.field}`),
  );
  return numbered(
    indent(
      [
        ...fields,
        '',
        '/** Records a flag-writing result of the add, sub, logic, inc, dec or imul kind (`op`). */',
        ...setLazy,
        '',
        '/** Records a result whose CF and OF are known (shifts, multiplies); AF reads 0. */',
        ...setResult,
      ],
      '  ',
    ),
  );
}
