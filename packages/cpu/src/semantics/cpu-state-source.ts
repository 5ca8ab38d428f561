import { LazyOp } from '../lazy-flags.js';
import {
  afOf,
  type ConditionFlag,
  cfOf,
  compareCondition,
  conditionBits,
  type FlagStage,
  ofOf,
  pfOf,
  sfOf,
  zfOf,
} from './flag-semantics.js';
import { LAZY_FIELDS, LAZY_READS, lazyStore } from './lazy-record.js';
import { indent, lazyName, numbered } from './numbered.js';
import { type RegStage, regRead, regWrite } from './reg-semantics.js';

/** The lines that delimit CpuState's generated part in cpu-state.ts. */
export const CPU_STATE_BEGIN =
  '  // @generated-begin: scripts/gen-dispatch.mjs writes the lazy-flag record, flags, conditions and register access from src/semantics/cpu-state-source.ts';
export const CPU_STATE_END = '  // @generated-end';

/** The kinds setLazy records (all but the result kind, which setResult records). */
const SET_LAZY_KINDS = [LazyOp.Add, LazyOp.Sub, LazyOp.Logic, LazyOp.Inc, LazyOp.Dec, LazyOp.Imul];

/** A method over `params` (each a number), wrapped one parameter a line as the formatter would. */
function method(name: string, params: readonly string[], body: readonly string[]): string[] {
  const head = `${name}(${params.map((p) => `${p}: number`).join(', ')}): void {`;
  const lines = head.length + 2 <= 120 ? [head] : [`${name}(`, ...params.map((p) => `  ${p}: number,`), '): void {'];
  return [...lines, ...body.map((l) => `  ${l}`), '}'];
}

/** CpuState's record as the flag formulas see it: every field read at run time. */
const RUN_TIME: FlagStage = {
  size: 'this.lsz',
  dl: 'this.ldl',
  dh: 'this.ldh',
  sl: 'this.lsl',
  sh: 'this.lsh',
  rl: 'this.lrl',
  rh: 'this.lrh',
  cf: 'this.lcf',
  of: 'this.lof',
  imul: 'imulOverflow',
  parity: 'PARITY',
  msb: 'msb',
};

const KINDS = Object.values(LazyOp).filter((k) => k !== LazyOp.None);
const FORMAT = '// biome-ignore format: generated (the formatter would re-wrap what the generator writes)';

/** RFLAGS bit `bit`, what a flag reads while the record is folded in (LazyOp.None). */
function folded(bit: number): string {
  return bit === 0 ? 'this.flags & 1' : `(this.flags >> ${bit}) & 1`;
}

/** A flag getter that depends on the kind: one case per formula, the kinds that share one together. */
function kindGetter(name: string, bit: number, formula: (kind: number) => string): string[] {
  const groups: { kinds: number[]; x: string }[] = [];
  for (const kind of KINDS) {
    const x = formula(kind);
    const g = groups.find((y) => y.x === x);
    if (g === undefined) groups.push({ kinds: [kind], x });
    else g.kinds.push(kind);
  }
  const out = [
    FORMAT,
    `${name}(): number {`,
    '  switch (this.lop) {',
    '    case #LazyOp.None:',
    `      return ${folded(bit)};`,
  ];
  groups.forEach((g, n) => {
    if (n === groups.length - 1) out.push('    default:');
    else for (const k of g.kinds) out.push(`    case #LazyOp.${lazyName(k)}:`);
    out.push(`      return ${g.x};`);
  });
  return [...out, '  }', '}'];
}

/** A flag getter the same for every kind. */
function plainGetter(name: string, bit: number, x: string): string[] {
  return [
    FORMAT,
    `${name}(): number {`,
    `  if (this.lop === #LazyOp.None) return ${folded(bit)};`,
    `  return ${x};`,
    '}',
  ];
}

/**
 * CpuState.cond: after a compare at 32/64 bits the signed orders straight from its operands (the
 * formulas the compiler uses after any compare), else the condition's flags from the getters.
 */
function cond(): string[] {
  const ops = { dl: 'dl', dh: 'dh', sl: 'sl', sh: 'sh' };
  const orders = (size: number, pad: string): string[] => [
    `${pad}switch (cc) {`,
    ...[12, 13, 14].flatMap((cc) => [`${pad}  case ${cc}:`, `${pad}    return ${compareCondition(cc, size, ops)};`]),
    `${pad}  default:`,
    `${pad}    return ${compareCondition(15, size, ops)};`,
    `${pad}}`,
  ];
  const getter = (f: ConditionFlag) => `this.get${f.toUpperCase()}()`;
  const pairs: string[] = [];
  for (let pair = 0; pair < 8; pair++) {
    pairs.push(pair === 7 ? '    default:' : `    case ${pair}:`, `      r = ${conditionBits(pair, getter)};`);
    if (pair !== 7) pairs.push('      break;');
  }
  return [
    '/**',
    ' * Evaluates an Intel condition code (tttn: O NO B AE E NE BE A S NS P NP L GE LE G).',
    ' * @see Intel SDM Vol. 1 Appendix B (EFLAGS condition codes)',
    ' */',
    FORMAT,
    'cond(cc: number): boolean {',
    '  // After cmp/sub at 32/64 bits the signed orders come straight from the operands.',
    '  if (this.lop === #LazyOp.Sub && this.lcf === 0 && this.lsz >= 4 && cc >= 12) {',
    '    const dl = this.ldl;',
    '    const dh = this.ldh;',
    '    const sl = this.lsl;',
    '    const sh = this.lsh;',
    '    if (this.lsz === 8) {',
    ...orders(8, '      '),
    '    }',
    ...orders(4, '    '),
    '  }',
    '  let r: number;',
    '  switch (cc >> 1) {',
    ...pairs,
    '  }',
    '  return (r ^ (cc & 1)) !== 0;',
    '}',
  ];
}

/** CpuState's registers: `this.R[r]`/`this.H[r]`. */
const REGS: RegStage = { lo: (r) => `this.R[${r}]`, hi: (r) => `this.H[${r}]` };

/** getR and setR, one case per operand size, from reg-semantics.ts (the compiler's register reads and writes too). */
function registers(): string[] {
  const read: string[] = [];
  const write: string[] = [];
  for (const size of [8, 4, 2, 1]) {
    read.push(size === 1 ? '    default:' : `    case ${size}:`);
    const x = regRead(size, 'r', REGS);
    read.push(`      this.vh = ${x.hi};`, `      return ${x.lo};`);
    write.push(size === 1 ? '    default:' : `    case ${size}:`);
    write.push(...regWrite(size, 'r', 'lo', 'hi', REGS).map((l) => `      ${l}`));
    if (size !== 1) write.push('      return;');
  }
  return [
    '/** Reads register `r` at `size` bytes (zero-extended); the high half goes to `vh`. */',
    FORMAT,
    'getR(r: number, size: number): number {',
    '  switch (size) {',
    ...read,
    '  }',
    '}',
    '',
    '/** Writes register `r` with x86 width rules: 32-bit writes zero the upper half, 8/16-bit merge. */',
    FORMAT,
    'setR(r: number, size: number, lo: number, hi: number): void {',
    '  switch (size) {',
    ...write,
    '  }',
    '}',
  ];
}

/**
 * CpuState's lazy-flag record (its fields, in {@link LAZY_FIELDS}' order, and the setters the
 * executors record through), the flags it evaluates to and the conditions over them, as the source
 * text scripts/gen-dispatch.mjs writes into cpu-state.ts. The flag and condition formulas are
 * flag-semantics.ts', which the compiler writes its flag reads from; getR and setR are
 * reg-semantics.ts', as the compiler's register reads and writes are.
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
        '',
        ...kindGetter('getCF', 0, (k) => cfOf(k, RUN_TIME)),
        '',
        ...plainGetter('getZF', 6, zfOf(RUN_TIME)),
        '',
        ...plainGetter('getSF', 7, sfOf(RUN_TIME)),
        '',
        ...kindGetter('getOF', 11, (k) => ofOf(k, RUN_TIME)),
        '',
        ...plainGetter('getPF', 2, pfOf(RUN_TIME)),
        '',
        ...kindGetter('getAF', 4, (k) => afOf(k, RUN_TIME)),
        '',
        ...cond(),
        '',
        ...registers(),
      ],
      '  ',
    ),
  );
}
