import type { CpuCore } from './cpu-core.js';
import { type Insn, OperandKind } from './insn.js';
import { Op } from './op.js';

function bswap32(v: number): number {
  return ((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >>> 8) & 0xff00) | (v >>> 24);
}

function ctz32(v: number): number {
  return v === 0 ? 32 : 31 - Math.clz32(v & -v);
}

function popcount32(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/**
 * bswap, bsf, bsr, tzcnt, lzcnt, popcnt. bsf/bsr leave the destination unchanged on a zero source;
 * their CF/OF/SF/AF/PF are undefined and left as they were.
 * @see Intel SDM Vol. 2A (BSF, BSR, BSWAP, LZCNT) and Vol. 2B (POPCNT, TZCNT)
 */
export function execBitScan(c: CpuCore, i: Insn): void {
  const size = i.size;
  if (i.op === Op.Bswap) {
    const r = i.dr;
    if (size === 8) {
      const l = c.R[r];
      c.R[r] = bswap32(c.H[r]);
      c.H[r] = bswap32(l);
    } else if (size === 4) c.setR(r, 4, bswap32(c.R[r]), 0);
    else c.setR(r, 2, 0, 0);
  } else {
    const l = c.readSrc(i);
    const h = size === 8 ? c.vh : 0;
    const bits = size * 8;
    const zero = l === 0 && h === 0;
    const low = h !== 0 && l === 0;
    let r = 0;
    switch (i.op) {
      case Op.Bsf:
      case Op.Tzcnt:
        r = zero ? bits : low ? 32 + ctz32(h) : ctz32(l);
        break;
      case Op.Bsr:
      case Op.Lzcnt:
        r = zero ? bits : size === 8 ? (h !== 0 ? Math.clz32(h) : 32 + Math.clz32(l)) : Math.clz32(l) - (32 - bits);
        if (i.op === Op.Bsr) r = bits - 1 - r;
        break;
      default:
        r = popcount32(l) + popcount32(h);
    }
    if (i.op === Op.Bsf || i.op === Op.Bsr) {
      if (!zero) c.setR(i.dr, size, r, 0);
      c.setArith(0x40, zero ? 0x40 : 0);
    } else if (i.op === Op.Popcnt) {
      c.setR(i.dr, size, r, 0);
      c.setArith(0x8d5, zero ? 0x40 : 0);
    } else {
      c.setR(i.dr, size, r, 0);
      c.setArith(0x41, (zero ? 1 : 0) | (r === 0 ? 0x40 : 0));
    }
  }
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}

/**
 * bt/bts/btr/btc (cc = 0..3) on registers and bit strings in memory (a register offset addresses
 * beyond the operand, signed). CF = the selected bit; OF/SF/AF/PF undefined and left as they were.
 * @see Intel SDM Vol. 2A (BT, BTC, BTR, BTS)
 */
export function execBitTest(c: CpuCore, i: Insn): void {
  const size = i.size;
  const bits = size * 8;
  let off: number;
  let lo = 0;
  let hi = 0;
  let dl: number;
  let dh: number;
  if (i.sk === OperandKind.Imm) off = i.il & (bits - 1);
  else off = c.getR(i.sr, size);
  if (i.dk === OperandKind.Mem) {
    lo = c.ea(i);
    hi = c.eah;
    if (i.sk !== OperandKind.Imm) {
      // Step 1: the signed bit offset's byte part, (offset >> 3) aligned down to the operand size.
      const oh = size === 8 ? c.vh : size === 4 ? off >> 31 : ((off << 16) >> 16) >> 31;
      const sl = size === 2 ? (off << 16) >> 16 : off;
      const bl = ((sl >>> 3) | (oh << 29)) & ~(size - 1);
      const bh = oh >> 3;
      // Step 2: add it to the effective address (64-bit).
      const x = (lo >>> 0) + (bl >>> 0);
      hi = (hi + bh + (x > 0xffffffff ? 1 : 0)) | 0;
      lo = x | 0;
      off &= bits - 1;
    }
    dl = c.load(lo, hi, size);
    dh = c.vh;
  } else {
    off &= bits - 1;
    dl = c.getR(i.dr, size);
    dh = c.vh;
  }
  const inHi = off >= 32;
  const m = 1 << (off & 31);
  const cf = ((inHi ? dh : dl) & m) !== 0 ? 1 : 0;
  if (i.cc !== 0) {
    let w = inHi ? dh : dl;
    w = i.cc === 1 ? w | m : i.cc === 2 ? w & ~m : w ^ m;
    if (inHi) dh = w;
    else dl = w;
    if (i.dk === OperandKind.Mem) c.store(lo, hi, size, dl, dh);
    else c.setR(i.dr, size, dl, dh);
  }
  c.setArith(1, cf);
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}

/** The low `k` bits as an int32 mask (k in 0..32). */
function lowMask(k: number): number {
  return k >= 32 ? -1 : (1 << k) - 1;
}

/**
 * The BMI1 group at 32/64 bits ({@link Op.Bmi1}; i2 0 andn, 1 bextr, 2 blsi, 3 blsmsk, 4 blsr). Every
 * one clears OF and sets ZF and SF from its result; CF is 0 for andn and bextr, `source != 0` for blsi
 * and `source == 0` for blsmsk and blsr. The SDM leaves AF and PF undefined (and bextr's SF): they are
 * what an Intel host gives. The source is read before anything is written, so a faulting load changes
 * nothing.
 * @see Intel SDM Vol. 2A (ANDN, BEXTR, BLSI, BLSMSK, BLSR)
 */
export function execBmi1(c: CpuCore, i: Insn): void {
  const w = i.size === 8;
  const sl = c.readSrc(i);
  const sh = w ? c.vh : 0;
  let rl: number;
  let rh = 0;
  let cf = 0;
  switch (i.i2) {
    case 0: {
      // andn: ~first & second, the first from VEX.vvvv.
      rl = ~c.R[i.r3] & sl;
      if (w) rh = ~c.H[i.r3] & sh;
      break;
    }
    case 1: {
      // bextr: LEN bits of the source from bit START (the control's bytes 0 and 1), zero-extended.
      const control = c.R[i.r3];
      const start = control & 0xff;
      const len = (control >>> 8) & 0xff;
      const bits = w ? 64 : 32;
      if (start >= bits || len === 0) {
        rl = 0;
      } else if (start === 0) {
        rl = sl;
        rh = sh;
      } else if (start < 32) {
        rl = (sl >>> start) | (sh << (32 - start));
        rh = sh >>> start;
      } else {
        rl = sh >>> (start - 32);
      }
      if (len < 32) {
        rl &= lowMask(len);
        rh = 0;
      } else if (len < 64) rh &= lowMask(len - 32);
      rl |= 0;
      rh |= 0;
      break;
    }
    case 2:
      // blsi: the lowest set bit, source & -source.
      rl = sl & -sl;
      if (w) rh = sh & ((~sh + (sl === 0 ? 1 : 0)) | 0);
      cf = sl !== 0 || sh !== 0 ? 1 : 0;
      break;
    default: {
      // blsmsk (source - 1) ^ source, blsr (source - 1) & source.
      const dl = (sl - 1) | 0;
      const dh = w && sl === 0 ? (sh - 1) | 0 : sh;
      if (i.i2 === 3) {
        rl = dl ^ sl;
        if (w) rh = dh ^ sh;
      } else {
        rl = dl & sl;
        if (w) rh = dh & sh;
      }
      cf = sl === 0 && sh === 0 ? 1 : 0;
    }
  }
  c.setR(i.dr, i.size, rl, rh);
  // CF, ZF and SF (the result's top bit); OF clear, and the undefined AF and PF clear as an Intel host
  // leaves them (measured with test/insn-bmi1.spec.ts's templates comparing every flag).
  const zf = rl === 0 && rh === 0 ? 0x40 : 0;
  const sf = (w ? rh : rl) < 0 ? 0x80 : 0;
  c.setArith(0x8d5, cf | zf | sf);
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}
