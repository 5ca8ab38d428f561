import { LazyOp } from '../lazy-flags.js';

/**
 * A lazy-flag record as source text (lazy-record.ts), for the flag formulas below: its operand size
 * known when the code is generated (the compiler: `8`) or read at run time (CpuState: `'this.lsz'`),
 * its fields as expressions, and what the formulas call.
 */
export interface FlagStage {
  readonly size: number | string;
  readonly dl: string;
  readonly dh: string;
  readonly sl: string;
  readonly sh: string;
  readonly rl: string;
  readonly rh: string;
  /** Carry in (add/sub kinds), the kept CF (inc/dec) or the known CF (the result kind); `'0'` if none. */
  readonly cf: string;
  /** The known OF (the result kind). */
  readonly of: string;
  /** imulOverflow(size, al, ah, bl, bh) under the name the generated code has for it. */
  readonly imul: string;
  /** The PARITY table under the name the generated code has for it. */
  readonly parity: string;
  /** msb(lo, hi, size) under its name, for a run-time size. */
  readonly msb: string;
}

const { Add: ADD, Sub: SUB, Logic: LOGIC, Inc: INC, Dec: DEC, Imul: IMUL } = LazyOp;

/** `wide` at a 64-bit size, `narrow` below it: chosen now for a known size, at run time for a staged one. */
function bySize(s: FlagStage, wide: string, narrow: string): string {
  if (typeof s.size === 'number') return s.size === 8 ? wide : narrow;
  return `(${s.size} === 8 ? ${wide} : ${narrow})`;
}

/** Most significant bit of a `size`-byte value as a 0/1 expression (lazy-flags.ts `msb`). */
export function msbOf(lo: string, hi: string, s: FlagStage): string {
  switch (s.size) {
    case 8:
      return `(${hi} >>> 31)`;
    case 4:
      return `(${lo} >>> 31)`;
    case 2:
      return `((${lo} >>> 15) & 1)`;
    case 1:
      return `((${lo} >>> 7) & 1)`;
    default:
      return `${s.msb}(${lo}, ${hi}, ${s.size})`;
  }
}

/** An unsigned `a < b` (or `a <= b` when `cf` is set at run time) of two int32 halves, as 0/1. */
function below(a: string, b: string, cf: string): string {
  return cf === '0'
    ? `((${a} >>> 0) < (${b} >>> 0) ? 1 : 0)`
    : `((${cf} ? (${a} >>> 0) <= (${b} >>> 0) : (${a} >>> 0) < (${b} >>> 0)) ? 1 : 0)`;
}

/**
 * CF of a record of kind `kind` as a 0/1 expression: an add carried out when the result is below the
 * first operand (at or below it with a carry in), a sub borrowed when the first operand is below the
 * second; the high halves decide at 64 bits unless equal.
 * @see Intel SDM Vol. 1 §3.4.3.1 and Vol. 2 (ADD, ADC, SUB, SBB, IMUL)
 */
export function cfOf(kind: number, s: FlagStage): string {
  switch (kind) {
    case ADD: {
      const high = `(${s.rh} >>> 0) < (${s.dh} >>> 0) ? 1 : 0`;
      const low = below(s.rl, s.dl, s.cf);
      if (typeof s.size === 'number') return s.size === 8 ? `(${s.rh} !== ${s.dh} ? (${high}) : ${low})` : low;
      return `(${s.size} === 8 && ${s.rh} !== ${s.dh} ? (${high}) : ${low})`;
    }
    case SUB: {
      const high = `(${s.dh} >>> 0) < (${s.sh} >>> 0) ? 1 : 0`;
      const low = below(s.dl, s.sl, s.cf);
      if (typeof s.size === 'number') return s.size === 8 ? `(${s.dh} !== ${s.sh} ? (${high}) : ${low})` : low;
      return `(${s.size} === 8 && ${s.dh} !== ${s.sh} ? (${high}) : ${low})`;
    }
    case LOGIC:
      return '0';
    case IMUL:
      return `${s.imul}(${s.size}, ${s.dl}, ${s.dh}, ${s.sl}, ${s.sh})`;
    default:
      return s.cf;
  }
}

/**
 * ZF as a 0/1 expression (the result is zero at its size). Where the size is known (the compiler),
 * conditions avoid `&&`/`||` whose right side runs rarely (the high halves' test when the low halves
 * match, at a loop's end): code V8 optimized before that side ever ran deoptimizes there, for want
 * of type feedback.
 */
export function zfOf(s: FlagStage): string {
  if (typeof s.size === 'number') {
    return s.size === 8 ? `((${s.rl} | ${s.rh}) === 0 ? 1 : 0)` : `(${s.rl} === 0 ? 1 : 0)`;
  }
  return `(${s.rl} === 0 && (${s.size} !== 8 || ${s.rh} === 0) ? 1 : 0)`;
}

/** SF as a 0/1 expression (the result's top bit). */
export function sfOf(s: FlagStage): string {
  return msbOf(s.rl, s.rh, s);
}

/**
 * OF of a record of kind `kind` as a 0/1 expression: an add (inc) overflowed when both operands'
 * signs differ from the result's, a sub (dec) when the operands' signs differ and the result's
 * differs from the first.
 * @see Intel SDM Vol. 1 §3.4.3.1
 */
export function ofOf(kind: number, s: FlagStage): string {
  switch (kind) {
    case ADD:
    case INC:
      return bySize(
        s,
        `(((${s.dh} ^ ${s.rh}) & (${s.sh} ^ ${s.rh})) >>> 31)`,
        msbOf(`((${s.dl} ^ ${s.rl}) & (${s.sl} ^ ${s.rl}))`, '0', s),
      );
    case SUB:
    case DEC:
      return bySize(
        s,
        `(((${s.dh} ^ ${s.sh}) & (${s.dh} ^ ${s.rh})) >>> 31)`,
        msbOf(`((${s.dl} ^ ${s.sl}) & (${s.dl} ^ ${s.rl}))`, '0', s),
      );
    case LOGIC:
      return '0';
    case IMUL:
      return `${s.imul}(${s.size}, ${s.dl}, ${s.dh}, ${s.sl}, ${s.sh})`;
    default:
      return s.of;
  }
}

/** PF as a 0/1 expression (even parity of the result's low byte). */
export function pfOf(s: FlagStage): string {
  return `${s.parity}[${s.rl} & 0xff]`;
}

/** AF as a 0/1 expression (the carry or borrow out of bit 3; 0 for the kinds that leave it undefined). */
export function afOf(kind: number, s: FlagStage): string {
  return kind === ADD || kind === SUB || kind === INC || kind === DEC
    ? `(((${s.dl} ^ ${s.sl} ^ ${s.rl}) >>> 4) & 1)`
    : '0';
}

/** A flag a condition is made of. */
export type ConditionFlag = 'cf' | 'zf' | 'sf' | 'of' | 'pf';

/**
 * The flag combination that condition pair `cc >> 1` tests (Intel tttn: O, B, E, BE, S, P, L, LE),
 * as a 0/1 expression over `flag`'s 0/1 expressions (asked only for the flags the pair reads); an
 * odd `cc` is its negation.
 * @see Intel SDM Vol. 1 Appendix B (EFLAGS condition codes)
 */
export function conditionBits(pair: number, flag: (f: ConditionFlag) => string): string {
  switch (pair) {
    case 0:
      return flag('of');
    case 1:
      return flag('cf');
    case 2:
      return flag('zf');
    case 3:
      return `(${flag('cf')} | ${flag('zf')})`;
    case 4:
      return flag('sf');
    case 5:
      return flag('pf');
    case 6:
      return `(${flag('sf')} ^ ${flag('of')})`;
    default:
      return `(${flag('zf')} | (${flag('sf')} ^ ${flag('of')}))`;
  }
}

/** The conditions {@link compareCondition} gives from a compare's operands: the orders and equality. */
export function isCompareCondition(cc: number): boolean {
  return (cc >= 2 && cc <= 7) || cc >= 12;
}

function signedShift(size: number): number {
  return size === 2 ? 16 : size === 1 ? 24 : 0;
}

/**
 * Condition `cc` (one of {@link isCompareCondition}) after a compare (a sub without borrow in) of
 * `size`-byte operands, as a boolean expression straight from the operands: `b`/`be`/`a`/`ae` their
 * unsigned order, `l`/`le`/`g`/`ge` their signed order, `e`/`ne` their equality. `or` joins an order
 * and the equality (be/a/le/g): `||` for TypeScript (the interpreter's generated part), `|` for the
 * compiler's JavaScript, where a rarely taken right side of `||` would deoptimize V8's code (see zfOf).
 */
export function compareCondition(
  cc: number,
  size: number,
  s: Pick<FlagStage, 'dl' | 'dh' | 'sl' | 'sh'>,
  or: '||' | '|' = '||',
): string {
  const w = size === 8;
  const { dl, dh, sl, sh } = s;
  // No `&&` whose right side runs rarely (see zfOf): equality by xor.
  const eq = w ? `(((${dl} ^ ${sl}) | (${dh} ^ ${sh})) === 0)` : `(${dl} === ${sl})`;
  // With `|` (the compiler's), the 64-bit orders are branch-free too: 0/1 from | and & of tests.
  const and = or === '|' ? '&' : '&&';
  const ult = w
    ? `((${dh} >>> 0) < (${sh} >>> 0) ${or} (${dh} === ${sh} ${and} (${dl} >>> 0) < (${sl} >>> 0)))`
    : `((${dl} >>> 0) < (${sl} >>> 0))`;
  const k = signedShift(size);
  const slt = w
    ? `(${dh} < ${sh} ${or} (${dh} === ${sh} ${and} (${dl} >>> 0) < (${sl} >>> 0)))`
    : k === 0
      ? `(${dl} < ${sl})`
      : `((${dl} << ${k}) < (${sl} << ${k}))`;
  switch (cc) {
    case 2:
      return ult;
    case 3:
      return `!${ult}`;
    case 4:
      return eq;
    case 5:
      return `!${eq}`;
    case 6:
      return `(${ult} ${or} ${eq})`;
    case 7:
      return `!(${ult} ${or} ${eq})`;
    case 12:
      return slt;
    case 13:
      return `!${slt}`;
    case 14:
      return `(${slt} ${or} ${eq})`;
    case 15:
      return `!(${slt} ${or} ${eq})`;
    default:
      throw new Error(`int3 semantics: condition ${cc} is not a compare's order`);
  }
}
