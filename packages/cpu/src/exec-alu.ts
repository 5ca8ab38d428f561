import type { CpuCore } from './cpu-core.js';
import { CpuFault } from './cpu-fault.js';
import { ExceptionVector } from './exception-vector.js';
import { type Insn, OperandKind } from './insn.js';
import { LazyOp, sizeMask } from './lazy-flags.js';
import { Op } from './op.js';

// @generated-begin: scripts/gen-dispatch.mjs writes execAlu, execUnary, execAluReg, execExtend, execConditional, addAt, subAt and imulAt from src/semantics/exec-alu-source.ts
/**
 * add/or/adc/sbb/and/sub/xor/cmp/test in every operand form and size, with lazily computed flags.
 * @see Intel SDM Vol. 2A (ADD, ADC, SUB, SBB, AND, OR, XOR, CMP, TEST)
 */
// biome-ignore format: generated (the formatter would re-wrap what the generator writes)
export function execAlu(c: CpuCore, i: Insn): void {
  const size = i.size;
  const op = i.op;
  const sl = c.readSrc(i);
  const sh = c.vh;
  const dl = c.readDst(i);
  const dh = c.vh;
  let rl: number;
  let rh = 0;
  let kind: number = 3 /* LazyOp.Logic */;
  const cin = op === 13 /* Op.Adc */ || op === 14 /* Op.Sbb */ ? c.getCF() : 0;
  switch (op) {
    case 13 /* Op.Adc */:
    case 11 /* Op.Add */:
      kind = 1 /* LazyOp.Add */;
      if (size === 8) {
        const l = (dl >>> 0) + (sl >>> 0) + cin;
        rl = l | 0;
        rh = (dh + sh + (l > 0xffffffff ? 1 : 0)) | 0;
      } else rl = (dl + sl + cin) & sizeMask(size);
      break;
    case 14 /* Op.Sbb */:
    case 16 /* Op.Sub */:
    case 18 /* Op.Cmp */:
      kind = 2 /* LazyOp.Sub */;
      if (size === 8) {
        const l = (dl >>> 0) - (sl >>> 0) - cin;
        rl = l | 0;
        rh = (dh - sh - (l < 0 ? 1 : 0)) | 0;
      } else rl = (dl - sl - cin) & sizeMask(size);
      break;
    case 12 /* Op.Or */:
      rl = dl | sl;
      rh = dh | sh;
      break;
    case 17 /* Op.Xor */:
      rl = dl ^ sl;
      rh = dh ^ sh;
      break;
    default:
      rl = dl & sl;
      rh = dh & sh;
  }
  if (op !== 18 /* Op.Cmp */ && op !== 19 /* Op.Test */) c.writeDst(i, rl, rh);
  c.setLazy(kind, size, dl, dh, sl, sh, rl, rh, cin);
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}

/**
 * inc/dec (CF preserved), not (no flags), neg (CF = operand != 0).
 * @see Intel SDM Vol. 2A (INC, DEC, NOT, NEG)
 */
// biome-ignore format: generated (the formatter would re-wrap what the generator writes)
export function execUnary(c: CpuCore, i: Insn): void {
  const size = i.size;
  const dl = c.readDst(i);
  const dh = c.vh;
  const mask = sizeMask(size);
  let rl: number;
  let rh = 0;
  switch (i.op) {
    case 20 /* Op.Inc */:
      {
        if (size === 8) {
          rl = (dl + 1) | 0;
          rh = rl === 0 ? (dh + 1) | 0 : dh;
        } else rl = (dl + 1) & mask;
        const cf = c.getCF();
        c.writeDst(i, rl, rh);
        c.setLazy(4 /* LazyOp.Inc */, size, dl, dh, 1, 0, rl, rh, cf);
        break;
      }
    case 21 /* Op.Dec */:
      {
        if (size === 8) {
          rl = (dl - 1) | 0;
          rh = rl === -1 ? (dh - 1) | 0 : dh;
        } else rl = (dl - 1) & mask;
        const cf = c.getCF();
        c.writeDst(i, rl, rh);
        c.setLazy(5 /* LazyOp.Dec */, size, dl, dh, 1, 0, rl, rh, cf);
        break;
      }
    case 22 /* Op.Not */:
      c.writeDst(i, (~dl & mask), (~dh));
      break;
    default:
      if (size === 8) {
        rl = -dl | 0;
        rh = (~dh + (dl === 0 ? 1 : 0)) | 0;
      } else rl = -dl & mask;
      c.writeDst(i, rl, rh);
      c.setLazy(2 /* LazyOp.Sub */, size, 0, 0, dl, dh, rl, rh, 0);
  }
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}

/**
 * The common case of execAlu: a 32/64-bit register destination and a register, immediate or memory
 * source.
 * @see Intel SDM Vol. 2A (ADD, ADC, SUB, SBB, AND, OR, XOR, CMP, TEST)
 */
// biome-ignore format: generated (the formatter would re-wrap what the generator writes)
export function execAluReg(c: CpuCore, i: Insn): void {
  const d = i.dr;
  const op = i.i2;
  const R = c.R;
  const H = c.H;
  const dl = R[d];
  const w = i.size === 8;
  const dh = w ? H[d] : 0;
  let sl: number;
  let sh: number;
  if (i.sk === 3 /* OperandKind.Imm */) {
    sl = i.il;
    sh = i.ih;
  } else if (i.sk === 1 /* OperandKind.Reg */) {
    sl = R[i.sr];
    sh = w ? H[i.sr] : 0;
  } else {
    sl = c.readSrc(i);
    sh = c.vh;
  }
  let rl: number;
  let rh = 0;
  let kind: number = 3 /* LazyOp.Logic */;
  const cin = op === 13 /* Op.Adc */ || op === 14 /* Op.Sbb */ ? c.getCF() : 0;
  switch (op) {
    case 13 /* Op.Adc */:
    case 11 /* Op.Add */:
      {
        kind = 1 /* LazyOp.Add */;
        const l = (dl >>> 0) + (sl >>> 0) + cin;
        rl = l | 0;
        if (w) rh = (dh + sh + (l > 0xffffffff ? 1 : 0)) | 0;
        break;
      }
    case 14 /* Op.Sbb */:
    case 16 /* Op.Sub */:
    case 18 /* Op.Cmp */:
      {
        kind = 2 /* LazyOp.Sub */;
        const l = (dl >>> 0) - (sl >>> 0) - cin;
        rl = l | 0;
        if (w) rh = (dh - sh - (l < 0 ? 1 : 0)) | 0;
        break;
      }
    case 12 /* Op.Or */:
      rl = dl | sl;
      rh = dh | sh;
      break;
    case 17 /* Op.Xor */:
      rl = dl ^ sl;
      rh = dh ^ sh;
      break;
    default:
      rl = dl & sl;
      rh = dh & sh;
  }
  if (op !== 18 /* Op.Cmp */ && op !== 19 /* Op.Test */) {
    R[d] = rl;
    H[d] = rh;
  }
  c.setLazy(kind, i.size, dl, dh, sl, sh, rl, rh, cin);
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}

/**
 * movzx/movsx/movsxd: widen the source to the destination size.
 * @see Intel SDM Vol. 2B (MOVZX, MOVSX/MOVSXD)
 */
// biome-ignore format: generated (the formatter would re-wrap what the generator writes)
export function execExtend(c: CpuCore, i: Insn): void {
  let v = readSrc2(c, i);
  let h = 0;
  if (i.op === 9 /* Op.Movsx */) {
    if (i.size2 === 1) { v = (v << 24) >> 24; h = (v >> 31); }
    else if (i.size2 === 2) { v = (v << 16) >> 16; h = (v >> 31); }
    else h = (v >> 31);
  } else if (i.size2 === 8) h = c.vh;
  c.setR(i.dr, i.size, v, h);
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}

/**
 * setcc and cmovcc (a 32-bit cmov zero-extends its destination even when the condition is false).
 * @see Intel SDM Vol. 2B (SETcc) and Vol. 2A (CMOVcc)
 */
// biome-ignore format: generated (the formatter would re-wrap what the generator writes)
export function execConditional(c: CpuCore, i: Insn): void {
  if (i.op === 40 /* Op.Setcc */) writeOperand(c, i, (c.cond(i.cc) ? 1 : 0), 0);
  else {
    const v = c.readSrc(i);
    const h = c.vh;
    if (c.cond(i.cc)) c.setR(i.dr, i.size, v, h);
    else if (i.size === 4) c.H[i.dr] = 0;
  }
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}

/** `d + s` at `size` bytes: the result's low half; its high half goes to `c.vh` (0 below 8 bytes). */
// biome-ignore format: generated (the formatter would re-wrap what the generator writes)
export function addAt(c: CpuCore, size: number, dl: number, dh: number, sl: number, sh: number): number {
  let rl: number;
  let rh = 0;
  if (size === 8) {
    rl = (dl + sl) | 0;
    rh = (dh + sh + (((dl & sl) | ((dl | sl) & ~rl)) >>> 31)) | 0;
  } else rl = (dl + sl) & sizeMask(size);
  c.vh = rh;
  return rl;
}

/** `d − s` at `size` bytes: the result's low half; its high half goes to `c.vh` (0 below 8 bytes). */
// biome-ignore format: generated (the formatter would re-wrap what the generator writes)
export function subAt(c: CpuCore, size: number, dl: number, dh: number, sl: number, sh: number): number {
  let rl: number;
  let rh = 0;
  if (size === 8) {
    rl = (dl - sl) | 0;
    rh = (dh - sh - (((~dl & sl) | (~(dl ^ sl) & rl)) >>> 31)) | 0;
  } else rl = (dl - sl) & sizeMask(size);
  c.vh = rh;
  return rl;
}

/** The low `size` bytes of `a * b` (imul's two- and three-operand forms): the low half returned, the high half in `c.vh`. */
// biome-ignore format: generated (the formatter would re-wrap what the generator writes)
export function imulAt(c: CpuCore, size: number, al: number, ah: number, bl: number, bh: number): number {
  let rl: number;
  let rh: number;
  if (size === 8) {
    rl = Math.imul(al, bl);
    rh = ((Math.imul(al >>> 16, bl >>> 16) + (((Math.imul(al >>> 16, bl & 65535) >>> 0) + (Math.imul(al & 65535, bl & 65535) >>> 16)) >>> 16) + (((Math.imul(al & 65535, bl >>> 16) >>> 0) + (((Math.imul(al >>> 16, bl & 65535) >>> 0) + (Math.imul(al & 65535, bl & 65535) >>> 16)) & 65535)) >>> 16)) + Math.imul(al, bh) + Math.imul(ah, bl)) | 0;
  } else {
    rl = Math.imul(al, bl);
    rh = 0;
    if (size === 2) rl &= 0xffff;
  }
  c.vh = rh;
  return rl;
}
// @generated-end

/** Reads the source at its own size (`size2`), zero-extended; high half to `vh`. */
function readSrc2(c: CpuCore, i: Insn): number {
  if (i.sk === OperandKind.Reg) return c.getR(i.sr, i.size2);
  const lo = c.ea(i);
  return c.load(lo, c.eah, i.size2);
}

/** Writes a register or memory destination without reading it first. */
export function writeOperand(c: CpuCore, i: Insn, lo: number, hi: number): void {
  if (i.dk === OperandKind.Reg) c.setR(i.dr, i.size, lo, hi);
  else {
    const a = c.ea(i);
    c.store(a, c.eah, i.size, lo, hi);
  }
}

/**
 * xchg, cmpxchg and xadd (lock prefixes need no extra work: instructions execute atomically here).
 * @see Intel SDM Vol. 2A (CMPXCHG) and Vol. 2B (XCHG, XADD)
 */
export function execExchange(c: CpuCore, i: Insn): void {
  const size = i.size;
  const dl = c.readDst(i);
  const dh = c.vh;
  const sl = c.getR(i.sr, size);
  const sh = c.vh;
  if (i.op === Op.Xchg) {
    c.writeDst(i, sl, sh);
    c.setR(i.sr, size, dl, dh);
  } else if (i.op === Op.Xadd) {
    const rl = addAt(c, size, dl, dh, sl, sh);
    const rh = c.vh;
    if (i.dk === OperandKind.Reg) {
      c.setR(i.sr, size, dl, dh);
      c.setR(i.dr, size, rl, rh);
    } else {
      c.writeDst(i, rl, rh);
      c.setR(i.sr, size, dl, dh);
    }
    c.setLazy(LazyOp.Add, size, dl, dh, sl, sh, rl, rh, 0);
  } else {
    const al = c.getR(0, size);
    const ah = c.vh;
    const rl = subAt(c, size, al, ah, dl, dh);
    const rh = c.vh;
    if (al === dl && ah === dh) c.writeDst(i, sl, sh);
    else {
      // A failed compare writes a memory destination back unchanged (locked cycle); a register is untouched.
      if (i.dk === OperandKind.Mem) c.writeDst(i, dl, dh);
      c.setR(0, size, dl, dh);
    }
    c.setLazy(LazyOp.Sub, size, al, ah, dl, dh, rl, rh, 0);
  }
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}

/**
 * cmpxchg8b m64 / cmpxchg16b m128: compares EDX:EAX / RDX:RAX with the memory operand; equal, ZF=1
 * and ECX:EBX / RCX:RBX is stored; else ZF=0, the operand is loaded into EDX:EAX / RDX:RAX (as
 * 32-bit writes for 8b: measured on the host CPU, RAX and RDX are left alone on success) and written
 * back unchanged (the locked cycle writes either way). cmpxchg16b needs a 16-byte aligned operand.
 * Only ZF changes.
 * @see Intel SDM Vol. 2A (CMPXCHG8B/CMPXCHG16B)
 */
export function execCmpxchgWide(c: CpuCore, i: Insn): void {
  const a = c.ea(i);
  const ah = c.eah;
  const R = c.R;
  const H = c.H;
  let equal: boolean;
  if (i.size === 8) {
    const ml = c.rd64(a, ah);
    const mh = c.vh;
    equal = ml === R[0] && mh === R[2];
    if (equal) c.wr64(a, ah, R[3], R[1]);
    else {
      c.wr64(a, ah, ml, mh);
      c.setR(0, 4, ml, 0);
      c.setR(2, 4, mh, 0);
    }
  } else {
    if ((a & 15) !== 0) throw new CpuFault(ExceptionVector.GeneralProtection, 0);
    const x = (a >>> 0) + 8;
    const bl = x | 0;
    const bh = (ah + (x > 0xffffffff ? 1 : 0)) | 0;
    const l0 = c.rd64(a, ah);
    const h0 = c.vh;
    const l1 = c.rd64(bl, bh);
    const h1 = c.vh;
    equal = l0 === R[0] && h0 === H[0] && l1 === R[2] && h1 === H[2];
    // Aligned, both halves are on one page: the first store faults before anything changed.
    if (equal) {
      c.wr64(a, ah, R[3], H[3]);
      c.wr64(bl, bh, R[1], H[1]);
    } else {
      c.wr64(a, ah, l0, h0);
      c.wr64(bl, bh, l1, h1);
      R[0] = l0;
      H[0] = h0;
      R[2] = l1;
      H[2] = h1;
    }
  }
  c.setArith(0x40, equal ? 0x40 : 0);
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}
