import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AddressSpace } from '../address-space.js';
import { Cpu } from '../cpu.js';
import { Insn, MemoryForm } from '../insn.js';
import { type EaStage, eaResult } from './ea-semantics.js';

const half = fc.oneof(
  fc.integer({ min: -0x80000000, max: 0x7fffffff }),
  fc.constantFrom(0, -1, 0x7fffffff, -0x80000000),
);
const halves = fc.array(half, { minLength: 16, maxLength: 16 });
const reg = fc.integer({ min: 0, max: 15 });
const big = (l: number, h: number) => BigInt.asUintN(64, (BigInt(h) << 32n) | BigInt(l >>> 0));

/** A memory operand of every form; General with or without base and index, a 32-bit address size, FS/GS. */
const operand = fc
  .record({
    mf: fc.constantFrom(MemoryForm.Disp, MemoryForm.Base, MemoryForm.BaseIndex, MemoryForm.Index, MemoryForm.General),
    mb: reg,
    mi: reg,
    ms: fc.constantFrom(1, 2, 4, 8),
    ml: half,
    mh: half,
    noBase: fc.boolean(),
    noIndex: fc.boolean(),
    a32: fc.constantFrom(0, 1),
    seg: fc.constantFrom(0, 1, 2),
  })
  .map((o) => {
    const i = new Insn();
    i.mf = o.mf;
    i.ms = o.ms;
    i.ml = o.ml;
    // A displacement is sign-extended, but a RIP-relative one is the absolute target (any 64 bits).
    i.mh = o.mf === MemoryForm.Disp ? o.mh : o.ml >> 31;
    const general = o.mf === MemoryForm.General;
    i.mb = o.mf === MemoryForm.Disp || o.mf === MemoryForm.Index || (general && o.noBase) ? -1 : o.mb;
    i.mi = o.mf === MemoryForm.Disp || o.mf === MemoryForm.Base || (general && o.noIndex) ? -1 : o.mi;
    i.a32 = general ? o.a32 : 0;
    i.seg = general ? o.seg : 0;
    return i;
  });

/** The address as the SDM defines it, from BigInt sums. */
function reference(i: Insn, R: number[], H: number[], fs: bigint, gs: bigint): bigint {
  let v = big(i.ml, i.mh);
  if (i.mb >= 0) v += big(R[i.mb], H[i.mb]);
  if (i.mi >= 0) v += big(R[i.mi], H[i.mi]) * BigInt(i.ms);
  v = BigInt.asUintN(i.a32 ? 32 : 64, v);
  if (i.seg !== 0) v += i.seg === 1 ? fs : gs;
  return BigInt.asUintN(64, v);
}

/** The compiler's staging: the form and its parts known, registers in locals L0..L15 / H0..H15. */
function compiled(i: Insn, read: Set<string> = new Set()): (R: number[], H: number[], cpu: object) => bigint {
  const lit = (v: number) => (v < 0 ? `(${v})` : `${v}`);
  const note = (r: string) => {
    read.add(r);
    return r;
  };
  const s: EaStage = {
    base: `${i.mb}`,
    index: `${i.mi}`,
    scale: `${i.ms}`,
    dl: lit(i.ml),
    du: `${i.ml >>> 0}`,
    dh: lit(i.mh),
    lo: (r) => `R[${note(r)}]`,
    hi: (r) => `H[${note(r)}]`,
    t: 'x',
    hasBase: i.mb >= 0,
    hasIndex: i.mi >= 0,
    a32: i.a32 !== 0,
    hasSeg: i.seg !== 0,
    segLo: `cpu.${i.seg === 1 ? 'fs' : 'gs'}Lo`,
    segHi: `cpu.${i.seg === 1 ? 'fs' : 'gs'}Hi`,
  };
  const x = eaResult(i.mf, s);
  const f = new Function('R', 'H', 'cpu', `${x.lines.join('\n')}\nreturn [${x.lo}, ${x.hi}];`);
  return (R, H, cpu) => {
    const [l, h] = f(R, H, cpu);
    return big(l, h);
  };
}

describe(eaResult, () => {
  it('should give CpuCore.ea (run-time form) and the compiled form the SDM address, for every form', () => {
    const cpu = new Cpu({ addressSpace: new AddressSpace(), jit: false });
    fc.assert(
      fc.property(operand, halves, halves, half, half, half, half, (i, R, H, fl, fh, gl, gh) => {
        cpu.R.set(R);
        cpu.H.set(H);
        cpu.fsLo = fl;
        cpu.fsHi = fh;
        cpu.gsLo = gl;
        cpu.gsHi = gh;
        const want = reference(i, R, H, big(fl, fh), big(gl, gh));
        const lo = cpu.ea(i);
        expect(big(lo, cpu.eah)).toBe(want);
        expect(compiled(i)(R, H, cpu)).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });

  it('should read, in the compiled form, only the registers the operand has', () => {
    // The compiler loads every register its stage reads into a local: an absent base or index
    // (register -1) read while building lines not written gave `let L-1 = R[-1]`, a SyntaxError
    // (the kernel's gs:disp per-CPU accesses, General form with neither).
    fc.assert(
      fc.property(operand, (i) => {
        const read = new Set<string>();
        compiled(i, read);
        const want = new Set([i.mb, i.mi].filter((r) => r >= 0).map(String));
        expect([...read].sort()).toEqual([...want].sort());
      }),
      { numRuns: 2000 },
    );
  });
});
