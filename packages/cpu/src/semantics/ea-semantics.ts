import { MemoryForm } from '../insn.js';
import { carryOut } from './alu-semantics.js';

/**
 * Where a memory operand's parts are, as source text: known when the code is generated (the compiler:
 * `3`, `8`, `4096`, its register locals) or read at run time (CpuCore.ea: `i.mb`, `this.R[b]`). A
 * test is a boolean when known, else the expression to test at run time.
 */
export interface EaStage {
  /** The base and index register numbers and the scale. */
  readonly base: string;
  readonly index: string;
  readonly scale: string;
  /** The displacement's low half as int32 and as uint32 (`i.ml >>> 0`, or the folded literal), and its high half. */
  readonly dl: string;
  readonly du: string;
  readonly dh: string;
  /** Register `r`'s low and high halves. */
  readonly lo: (r: string) => string;
  readonly hi: (r: string) => string;
  /** A temporary's name. */
  readonly t: string;
  /** The general form's: is there a base, an index, a 32-bit address size, a segment base (FS/GS)? */
  readonly hasBase: boolean | string;
  readonly hasIndex: boolean | string;
  readonly a32: boolean | string;
  readonly hasSeg: boolean | string;
  /** The segment base's halves (read only when there is one). */
  readonly segLo: string;
  readonly segHi: string;
}

/** An effective address: statements to run first, then its halves as expressions over them. */
export interface EaResult {
  readonly lines: string[];
  readonly lo: string;
  readonly hi: string;
}

function when(test: boolean | string, lines: () => string[]): string[] {
  // The lines are built only when they are written: building them reads their registers (the
  // compiler's stage records each register read as one to load, and an absent base is register -1).
  if (test === false) return [];
  const body = lines().map((l) => `  ${l}`);
  return test === true ? ['{', ...body, '}'] : [`if (${test}) {`, ...body, '}'];
}

/**
 * The effective address of a memory operand of form `mf` (MemoryForm), the one definition CpuCore.ea
 * (generated, every form behind a run-time test) and the compiler (one form, its parts known) both
 * use. Sums are exact in doubles (below 2^36), so each form is one add chain truncated once; the
 * general form adds its parts one at a time, drops the high half at a 32-bit address size, then adds
 * the segment base.
 * @see Intel SDM Vol. 1 §3.7.5 (specifying an offset) and §3.3.7 (address calculations in 64-bit mode)
 */
export function eaResult(mf: number, s: EaStage): EaResult {
  const { t, base, index, scale } = s;
  switch (mf) {
    case MemoryForm.Disp:
      return { lines: [], lo: s.dl, hi: s.dh };
    case MemoryForm.Base:
      // A displacement known when compiling: none is the base itself; else int32 halves, the carry
      // out of the low sum from its bits (no branch).
      if (/^\d+$/.test(s.du)) {
        if (s.du === '0' && s.dh === '0') return { lines: [], lo: s.lo(base), hi: s.hi(base) };
        return {
          lines: [`const ${t} = (${s.lo(base)} + ${s.dl}) | 0;`],
          lo: t,
          hi: `(${s.dh} + ${s.hi(base)} + ${carryOut(s.lo(base), s.dl, t)}) | 0`,
        };
      }
      return {
        lines: [`const ${t} = ${s.du} + (${s.lo(base)} >>> 0);`],
        lo: `${t} | 0`,
        hi: `(${s.dh} + ${s.hi(base)} + (${t} > 0xffffffff ? 1 : 0)) | 0`,
      };
    case MemoryForm.BaseIndex:
      if (/^\d+$/.test(s.du) && /^\d+$/.test(scale)) return int32Sum(s, true);
      return {
        lines: [`const ${t} = (${s.lo(index)} >>> 0) * ${scale} + (${s.lo(base)} >>> 0) + ${s.du};`],
        lo: `${t} | 0`,
        hi: `(${s.dh} + ${s.hi(base)} + Math.imul(${s.hi(index)}, ${scale}) + ((${t} / 4294967296) | 0)) | 0`,
      };
    case MemoryForm.Index:
      if (/^\d+$/.test(s.du) && /^\d+$/.test(scale)) return int32Sum(s, false);
      return {
        lines: [`const ${t} = (${s.lo(index)} >>> 0) * ${scale} + ${s.du};`],
        lo: `${t} | 0`,
        hi: `(${s.dh} + Math.imul(${s.hi(index)}, ${scale}) + ((${t} / 4294967296) | 0)) | 0`,
      };
    default: {
      const g = `${t}l`;
      const q = `${t}h`;
      return {
        lines: [
          `let ${g} = ${s.dl};`,
          `let ${q} = ${s.dh};`,
          ...when(s.hasBase, () => [
            `const l = (${g} >>> 0) + (${s.lo(base)} >>> 0);`,
            `${q} = ${q} + ${s.hi(base)} + (l > 0xffffffff ? 1 : 0);`,
            `${g} = l | 0;`,
          ]),
          ...when(s.hasIndex, () => [
            `const z = (${s.lo(index)} >>> 0) * ${scale} + (${g} >>> 0);`,
            `${q} = ${q} + ${s.hi(index)} * ${scale} + ((z / 4294967296) | 0);`,
            `${g} = z | 0;`,
          ]),
          ...(s.a32 === true ? [`${q} = 0;`] : s.a32 === false ? [] : [`if (${s.a32}) ${q} = 0;`]),
          ...when(s.hasSeg, () => [
            `const l = (${g} >>> 0) + (${s.segLo} >>> 0);`,
            `${q} = ${q} + ${s.segHi} + (l > 0xffffffff ? 1 : 0);`,
            `${g} = l | 0;`,
          ]),
        ],
        lo: g,
        hi: `${q} | 0`,
      };
    }
  }
}

/**
 * index * scale (+ base) + disp with the scale and displacement known (the compiler): int32 halves,
 * the index shifted, each carry out of a low sum from its bits. No double arithmetic: the high half
 * is ready as soon as the low one, and the TLB slot needs both (see tlb-semantics.ts).
 */
function int32Sum(s: EaStage, withBase: boolean): EaResult {
  const { t, index, base } = s;
  const sh = Math.log2(Number(s.scale));
  const il = sh === 0 ? s.lo(index) : `(${s.lo(index)} << ${sh})`;
  const ih = sh === 0 ? s.hi(index) : `((${s.hi(index)} << ${sh}) | (${s.lo(index)} >>> ${32 - sh}))`;
  const lines = [`const ${t}i = ${il};`];
  let lo = `${t}i`;
  let hi = ih;
  if (withBase) {
    lines.push(`const ${t}b = (${t}i + ${s.lo(base)}) | 0;`);
    hi = `${hi} + ${s.hi(base)} + ${carryOut(`${t}i`, s.lo(base), `${t}b`)}`;
    lo = `${t}b`;
  }
  if (s.du !== '0') {
    lines.push(`const ${t} = (${lo} + ${s.dl}) | 0;`);
    hi = `${hi} + ${s.dh} + ${carryOut(lo, s.dl, t)}`;
    lo = t;
  }
  return { lines, lo, hi: `(${hi}) | 0` };
}

/**
 * The run-time stage of a memory operand over `i` (an Insn), with registers read through `regs`
 * (`'this.'`, or `''` for locals R and H) and the base, index and scale as `parts` names them (`i.mb`
 * …, or locals holding them).
 */
export function runTimeEa(
  regs: string,
  t: string,
  parts: { readonly base: string; readonly index: string; readonly scale: string } = {
    base: 'i.mb',
    index: 'i.mi',
    scale: 'i.ms',
  },
): EaStage {
  return {
    ...parts,
    dl: 'i.ml',
    du: '(i.ml >>> 0)',
    dh: 'i.mh',
    lo: (r) => `${regs}R[${r}]`,
    hi: (r) => `${regs}H[${r}]`,
    t,
    hasBase: 'i.mb >= 0',
    hasIndex: 'i.mi >= 0',
    a32: 'i.a32 !== 0',
    hasSeg: 'i.seg !== 0',
    segLo: '(i.seg === 1 ? this.fsLo : this.gsLo)',
    segHi: '(i.seg === 1 ? this.fsHi : this.gsHi)',
  };
}
