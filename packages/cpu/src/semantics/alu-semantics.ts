import { LazyOp } from '../lazy-flags.js';
import { Op } from '../op.js';

/**
 * Where the operands and results of one ALU operation live, as source text: a staged value is either
 * known when the code is generated (the compiler: `w` is `true`, `sl` is `42`) or read at run time
 * (the interpreter: `w` is the name of a local holding `i.size === 8`).
 */
export interface AluStage {
  /** 64-bit operation: known, or the name of a boolean local (then `dh`/`sh` are 0 when it is false). */
  readonly w: boolean | string;
  /** Value mask of a 1/2-byte operation (source text), null at 4/8 bytes. Only with a known `w`. */
  readonly mask: string | null;
  readonly dl: string;
  readonly dh: string;
  readonly sl: string;
  readonly sh: string;
  /** Carry in (adc/sbb) as a 0/1 expression, `'0'` for the others. */
  readonly cin: string;
  /** Where the result's halves go. */
  readonly rl: string;
  readonly rh: string;
  /** A temporary's name. */
  readonly t: string;
  /** `'const '` to declare the results, `''` to assign them (the interpreter's `let rl; let rh = 0;`). */
  readonly decl: string;
}

/** The lazy-flag kind each ALU op records (CF/OF/AF come from it and the operands). */
export const ALU_LAZY_OP: Readonly<Record<number, number>> = {
  [Op.Add]: LazyOp.Add,
  [Op.Adc]: LazyOp.Add,
  [Op.Sub]: LazyOp.Sub,
  [Op.Sbb]: LazyOp.Sub,
  [Op.Cmp]: LazyOp.Sub,
  [Op.Or]: LazyOp.Logic,
  [Op.And]: LazyOp.Logic,
  [Op.Xor]: LazyOp.Logic,
  [Op.Test]: LazyOp.Logic,
};

/**
 * The carry out of the 32-bit sum `r` = `a` + `b` (int32 names or literals) as a 0/1 expression: bit
 * 31 of the carries, (a & b) | ((a | b) & ~r).
 */
export function carryOut(a: string, b: string, r: string): string {
  return `(((${a} & ${b}) | ((${a} | ${b}) & ~${r})) >>> 31)`;
}

/** The borrow out of the 32-bit difference `r` = `a` - `b` as a 0/1 expression: bit 31 of (~a & b) | (~(a ^ b) & r). */
export function borrowOut(a: string, b: string, r: string): string {
  return `(((~${a} & ${b}) | (~(${a} ^ ${b}) & ${r})) >>> 31)`;
}

/** Whether the ALU op writes its result back (cmp and test only set flags). */
export function aluWritesResult(op: number): boolean {
  return op !== Op.Cmp && op !== Op.Test;
}

/**
 * The result of ALU op `op` (add, adc, sub, sbb, cmp, or, and, xor, test) as statements over `s`: the
 * one definition of these operations that the interpreter's dispatch and the compiler both use. At
 * 64 bits the halves carry or borrow through an unsigned low sum; at 1/2/4 bytes the high half is 0
 * (not assigned when `w` is known false).
 * @see Intel SDM Vol. 2A (ADD, ADC, SUB, SBB, AND, OR, XOR, CMP, TEST)
 */
export function aluResult(op: number, s: AluStage): string[] {
  const { w, dl, dh, sl, sh, rl, rh, t, decl } = s;
  const c = s.cin === '0' ? '' : ` + ${s.cin}`;
  const b = s.cin === '0' ? '' : ` - ${s.cin}`;
  const wide = (line: string): string[] => (w === true ? [line] : w === false ? [] : [`if (${w}) ${line}`]);
  const narrowTail = s.mask === null ? '| 0' : `& ${s.mask}`;
  switch (op) {
    case Op.Add:
    case Op.Adc:
      if (w === false) return [`${decl}${rl} = (${dl} + ${sl}${c}) ${narrowTail};`];
      // Known 64 bits without a carry in (the compiler): int32 halves, the carry out of the low
      // sum from its bits (no branch: V8 keeps it in integer registers, and its graph small).
      if (w === true && s.cin === '0')
        return [`${decl}${rl} = (${dl} + ${sl}) | 0;`, `${decl}${rh} = (${dh} + ${sh} + ${carryOut(dl, sl, rl)}) | 0;`];
      return [
        `const ${t} = (${dl} >>> 0) + (${sl} >>> 0)${c};`,
        `${decl}${rl} = ${t} | 0;`,
        ...wide(`${decl}${rh} = (${dh} + ${sh} + (${t} > 0xffffffff ? 1 : 0)) | 0;`),
      ];
    case Op.Sub:
    case Op.Sbb:
    case Op.Cmp:
      if (w === false) return [`${decl}${rl} = (${dl} - ${sl}${b}) ${narrowTail};`];
      // As add, with the borrow out of the low difference.
      if (w === true && s.cin === '0')
        return [
          `${decl}${rl} = (${dl} - ${sl}) | 0;`,
          `${decl}${rh} = (${dh} - ${sh} - ${borrowOut(dl, sl, rl)}) | 0;`,
        ];
      return [
        `const ${t} = (${dl} >>> 0) - (${sl} >>> 0)${b};`,
        `${decl}${rl} = ${t} | 0;`,
        ...wide(`${decl}${rh} = (${dh} - ${sh} - (${t} < 0 ? 1 : 0)) | 0;`),
      ];
    case Op.Or:
    case Op.And:
    case Op.Xor:
    case Op.Test: {
      const o = op === Op.Or ? '|' : op === Op.Xor ? '^' : '&';
      // At a run-time width the high halves are 0 for a 32-bit operation, so this is exact there too.
      return [`${decl}${rl} = ${dl} ${o} ${sl};`, ...(w === false ? [] : [`${decl}${rh} = ${dh} ${o} ${sh};`])];
    }
    default:
      throw new Error(`int3 semantics: op ${op} is no ALU op`);
  }
}

/**
 * neg: `0 - d` into `rl`/`rh` (its flags are LazyOp.Sub's with 0 and `d` as operands, so CF = d != 0).
 * @see Intel SDM Vol. 2B (NEG)
 */
export function negResult(s: Pick<AluStage, 'w' | 'mask' | 'dl' | 'dh' | 'rl' | 'rh' | 'decl'>): string[] {
  const { w, dl, dh, rl, rh, decl } = s;
  if (w === false) return [`${decl}${rl} = -${dl} ${s.mask === null ? '| 0' : `& ${s.mask}`};`];
  const hi = `(~${dh} + (${dl} === 0 ? 1 : 0)) | 0`;
  return [`${decl}${rl} = -${dl} | 0;`, `${decl}${rh} = ${w === true ? hi : `${w} ? ${hi} : 0`};`];
}

/**
 * The high 32 bits (as an int32 expression) of the unsigned 32x32-bit product of the int32 expressions
 * `a` and `b`, in int32 arithmetic only: four 16x16-bit products, each below 2^32, whose carries are
 * added in 16-bit steps (Hacker's Delight 8-2, mulhu). umulHigh32 in imul-overflow.ts is the same
 * function. Doubles would do it in fewer operations (round((a * b - low) / 2^32)), but V8 compiles
 * that to a float division and a rounding that cost more than the whole rest of an imul.
 * @see Intel SDM Vol. 2B (MUL)
 */
export function umulHighText(a: string, b: string): string {
  const t = `((Math.imul(${a} >>> 16, ${b} & 65535) >>> 0) + (Math.imul(${a} & 65535, ${b} & 65535) >>> 16))`;
  const mid = `(((Math.imul(${a} & 65535, ${b} >>> 16) >>> 0) + (${t} & 65535)) >>> 16)`;
  return `(Math.imul(${a} >>> 16, ${b} >>> 16) + (${t} >>> 16) + ${mid})`;
}

/**
 * imul r, r / imul r, r, imm at 32/64 bits: the low 32 or 64 bits of `a * b` into `rl`/`rh` (CF/OF are
 * LazyOp.Imul's, from the operands). The high half is umulHighText's of the low halves plus the cross
 * products, all modulo 2^32.
 * @see Intel SDM Vol. 2A (IMUL)
 */
export function imulResult(s: {
  readonly w: boolean | string;
  readonly al: string;
  readonly ah: string;
  readonly bl: string;
  readonly bh: string;
  readonly rl: string;
  readonly rh: string;
  readonly decl: string;
}): string[] {
  const { w, al, ah, bl, bh, rl, rh, decl } = s;
  const hi = `(${umulHighText(al, bl)} + Math.imul(${al}, ${bh}) + Math.imul(${ah}, ${bl})) | 0`;
  return [
    `${decl}${rl} = Math.imul(${al}, ${bl});`,
    `${decl}${rh} = ${w === true ? hi : w === false ? '0' : `${w} ? ${hi} : 0`};`,
  ];
}

/**
 * inc/dec: `d ± 1` into `rl`/`rh` (flags LazyOp.Inc/Dec's with 1 as the second operand; CF kept).
 * At 64 bits the high half moves when the low half wraps (to 0 for inc, to -1 for dec).
 * @see Intel SDM Vol. 2A (INC, DEC)
 */
export function incDecResult(
  op: number,
  s: Pick<AluStage, 'mask' | 'dl' | 'dh' | 'rl' | 'rh' | 'decl'> & { readonly w: boolean },
): string[] {
  const { dl, dh, rl, rh, decl } = s;
  const inc = op === Op.Inc;
  if (op !== Op.Inc && op !== Op.Dec) throw new Error(`int3 semantics: op ${op} is no inc/dec`);
  const sum = `(${dl} ${inc ? '+' : '-'} 1)`;
  if (!s.w) return [`${decl}${rl} = ${sum} ${s.mask === null ? '| 0' : `& ${s.mask}`};`];
  return [
    `${decl}${rl} = ${sum} | 0;`,
    inc
      ? `${decl}${rh} = ${rl} === 0 ? (${dh} + 1) | 0 : ${dh};`
      : `${decl}${rh} = ${rl} === -1 ? (${dh} - 1) | 0 : ${dh};`,
  ];
}

/**
 * not: the complement's halves as expressions (no flags). With a run-time width the high half is
 * meaningful only at 64 bits (a narrower write drops it).
 * @see Intel SDM Vol. 2B (NOT)
 */
export function notResult(s: Pick<AluStage, 'w' | 'mask' | 'dl' | 'dh'>): { lo: string; hi: string } {
  return { lo: s.mask === null ? `(~${s.dl})` : `(~${s.dl} & ${s.mask})`, hi: s.w === false ? '0' : `(~${s.dh})` };
}
