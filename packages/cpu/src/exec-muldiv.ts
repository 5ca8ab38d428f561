import type { CpuCore } from './cpu-core.js';
import { CpuFault } from './cpu-fault.js';
import { ExceptionVector } from './exception-vector.js';
import { imulAt } from './exec-alu.js';
import type { Insn } from './insn.js';
import { LazyOp } from './lazy-flags.js';
import { Op } from './op.js';

const TWO32 = 4294967296;
let mulHi = 0;
/** Words of the last 128-bit product / quotient / remainder (uint32 as numbers or int32). */
let w0 = 0;
let w1 = 0;
let w2 = 0;
let w3 = 0;

/** Unsigned 32x32 -> 64 multiply: returns the low half, high half in mulHi (both int32 bit patterns). */
function umul32(a: number, b: number): number {
  a >>>= 0;
  b >>>= 0;
  const al = a & 0xffff;
  const ah = a >>> 16;
  const bl = b & 0xffff;
  const bh = b >>> 16;
  // All partial sums stay below 2^34, exact in doubles; divisions by 2^16 are exact too (no fmod).
  const mid = al * bh + ah * bl;
  const midHi = (mid / 65536) | 0;
  const low = al * bl + (mid - midHi * 65536) * 65536;
  mulHi = (ah * bh + midHi + (low >= TWO32 ? 1 : 0)) | 0;
  return low | 0;
}

/** Unsigned 64x64 -> 128 multiply into w0..w3 (int32 words, w0 least significant). */
function umul64(al: number, ah: number, bl: number, bh: number): void {
  const l00 = umul32(al, bl);
  const h00 = mulHi;
  const l01 = umul32(al, bh);
  const h01 = mulHi;
  const l10 = umul32(ah, bl);
  const h10 = mulHi;
  const l11 = umul32(ah, bh);
  const h11 = mulHi;
  const t1 = (h00 >>> 0) + (l01 >>> 0) + (l10 >>> 0);
  const t2 = (h01 >>> 0) + (h10 >>> 0) + (l11 >>> 0) + Math.floor(t1 / TWO32);
  w0 = l00;
  w1 = t1 | 0;
  w2 = t2 | 0;
  w3 = ((h11 >>> 0) + Math.floor(t2 / TWO32)) | 0;
}

/** Signed 64x64 -> 128 multiply into w0..w3: the unsigned product with the high half corrected. */
function smul64(al: number, ah: number, bl: number, bh: number): void {
  umul64(al, ah, bl, bh);
  if (ah < 0) sub64High(bl, bh);
  if (bh < 0) sub64High(al, ah);
}

function sub64High(l: number, h: number): void {
  const x = (w2 >>> 0) - (l >>> 0);
  w2 = x | 0;
  w3 = (w3 - h - (x < 0 ? 1 : 0)) | 0;
}

/**
 * mul and one-operand imul: AX / DX:AX / EDX:EAX / RDX:RAX = accumulator * source; CF = OF = the high
 * half is significant. SF/ZF/PF follow the low half (the SDM leaves them undefined).
 * @see Intel SDM Vol. 2B (MUL) and Vol. 2A (IMUL)
 */
export function execMul(c: CpuCore, i: Insn): void {
  const size = i.size;
  const s = c.readSrc(i);
  const sh = c.vh;
  const signed = i.op === Op.Imul1;
  let lo: number;
  let over: boolean;
  if (size === 1 || size === 2) {
    const bits = size * 8;
    const a = c.getR(0, size);
    const r = signed ? sx(a, bits) * sx(s, bits) : a * s;
    const mask = size === 1 ? 0xff : 0xffff;
    lo = r & mask;
    over = signed ? r !== sx(lo, bits) : r >>> bits !== 0;
    if (size === 1) c.setR(0, 2, r & 0xffff, 0);
    else {
      c.setR(0, 2, r, 0);
      c.setR(2, 2, r >> 16, 0);
    }
  } else if (size === 4) {
    const a = c.R[0];
    lo = umul32(a, s);
    let hi = mulHi;
    if (signed) hi = (hi - (a < 0 ? s : 0) - (s < 0 ? a : 0)) | 0;
    over = signed ? hi !== lo >> 31 : hi !== 0;
    c.setR(0, 4, lo, 0);
    c.setR(2, 4, hi, 0);
  } else {
    if (signed) smul64(c.R[0], c.H[0], s, sh);
    else umul64(c.R[0], c.H[0], s, sh);
    lo = w0;
    over = signed ? w2 !== w1 >> 31 || w3 !== w1 >> 31 : (w2 | w3) !== 0;
    c.setR(0, 8, w0, w1);
    c.setR(2, 8, w2, w3);
  }
  const f = over ? 1 : 0;
  c.setResult(size, lo, size === 8 ? w1 : 0, f, f);
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}

function sx(v: number, bits: number): number {
  return bits === 8 ? (v << 24) >> 24 : bits === 16 ? (v << 16) >> 16 : v | 0;
}

/**
 * Two- and three-operand imul: the truncated product (the low bits are the same signed or unsigned).
 * CF = OF (the signed product did not fit) are lazy: both factors are recorded and
 * {@link imulOverflow} runs only if a flag is read, which gcc's code never does after a C multiply.
 * @see Intel SDM Vol. 2A (IMUL)
 */
export function execImul2(c: CpuCore, i: Insn): void {
  const size = i.size;
  const bl = c.readSrc(i);
  const bh = c.vh;
  let al: number;
  let ah: number;
  if (i.i2 === 1) {
    al = i.il;
    ah = i.ih;
  } else {
    al = c.getR(i.dr, size);
    ah = c.vh;
  }
  const rl = imulAt(c, size, al, ah, bl, bh);
  const rh = c.vh;
  c.setR(i.dr, size, rl, rh);
  c.setLazy(LazyOp.Imul, size, al, ah, bl, bh, rl, rh, 0);
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}

/**
 * Unsigned 128/64 division of n3:n2:n1:n0 by d1:d0 (uint32 words) by shift-and-subtract; requires
 * n3:n2 < d1:d0. Quotient into w1:w0, remainder into w3:w2.
 */
function udiv128(n3: number, n2: number, n1: number, n0: number, d1: number, d0: number): void {
  let r1 = n3 >>> 0;
  let r0 = n2 >>> 0;
  let q1 = 0;
  let q0 = 0;
  d1 >>>= 0;
  d0 >>>= 0;
  for (let k = 63; k >= 0; k--) {
    const bitIn = k >= 32 ? (n1 >>> (k - 32)) & 1 : (n0 >>> k) & 1;
    const top = r1 >>> 31;
    r1 = ((r1 << 1) | (r0 >>> 31)) >>> 0;
    r0 = ((r0 << 1) | bitIn) >>> 0;
    if (top || r1 > d1 || (r1 === d1 && r0 >= d0)) {
      const x = r0 - d0;
      r0 = x >>> 0;
      r1 = (r1 - d1 - (x < 0 ? 1 : 0)) >>> 0;
      if (k >= 32) q1 |= 1 << (k - 32);
      else q0 |= 1 << k;
    }
  }
  w0 = q0 | 0;
  w1 = q1 | 0;
  w2 = r0 | 0;
  w3 = r1 | 0;
}

function divideError(): never {
  throw new CpuFault(ExceptionVector.DivideError, undefined);
}

/** Negates the 128-bit value n3:n2:n1:n0 into w3..w0. */
function neg128(n3: number, n2: number, n1: number, n0: number): void {
  const a = (~n0 >>> 0) + 1;
  const b = (~n1 >>> 0) + (a > 0xffffffff ? 1 : 0);
  const c = (~n2 >>> 0) + (b > 0xffffffff ? 1 : 0);
  w0 = a | 0;
  w1 = b | 0;
  w2 = c | 0;
  w3 = (~n3 + (c > 0xffffffff ? 1 : 0)) | 0;
}

/**
 * div/idiv at every size; #DE on a zero divisor or a quotient that does not fit. Flags are left
 * unchanged (all undefined per the SDM).
 * @see Intel SDM Vol. 2A (DIV, IDIV)
 */
export function execDiv(c: CpuCore, i: Insn): void {
  const size = i.size;
  const signed = i.op === Op.Idiv;
  const dl = c.readSrc(i);
  const dh = c.vh;
  if (dl === 0 && dh === 0) divideError();
  if (size <= 2) {
    const bits = size * 8;
    const n = size === 1 ? c.R[0] & 0xffff : ((c.R[2] & 0xffff) << 16) | (c.R[0] & 0xffff);
    const nn = signed ? sx(n, bits * 2) : n >>> 0;
    const d = signed ? sx(dl, bits) : dl;
    const q = Math.trunc(nn / d);
    const r = nn - q * d;
    const lim = 2 ** (signed ? bits - 1 : bits);
    if (q >= lim || q < (signed ? -lim : 0)) divideError();
    const mask = (1 << bits) - 1;
    if (size === 1) c.setR(0, 2, ((r & mask) << 8) | (q & mask), 0);
    else {
      c.setR(0, 2, q, 0);
      c.setR(2, 2, r, 0);
    }
  } else {
    // Step 1: the dividend as four uint32 words, the divisor as two.
    let n3 = 0;
    let n2 = 0;
    let n1 = 0;
    let n0 = 0;
    if (size === 8) {
      n3 = c.H[2];
      n2 = c.R[2];
      n1 = c.H[0];
      n0 = c.R[0];
    } else {
      n1 = c.R[2];
      n0 = c.R[0];
      if (signed && n1 < 0) n3 = n2 = -1;
    }
    let d1 = size === 8 ? dh : signed && dl < 0 ? -1 : 0;
    let d0 = dl;
    // Step 2: signed operands become magnitudes.
    const nNeg = signed && n3 < 0;
    const dNeg = signed && d1 < 0;
    if (nNeg) {
      neg128(n3, n2, n1, n0);
      [n3, n2, n1, n0] = [w3, w2, w1, w0];
    }
    if (dNeg) {
      const x = (~d0 >>> 0) + 1;
      d0 = x | 0;
      d1 = (~d1 + (x > 0xffffffff ? 1 : 0)) | 0;
    }
    // Step 3: the quotient must fit in 64 bits before dividing (n3:n2 < divisor).
    if (n3 >>> 0 > d1 >>> 0 || (n3 === d1 && n2 >>> 0 >= d0 >>> 0)) divideError();
    udiv128(n3, n2, n1, n0, d1, d0);
    let q0 = w0;
    let q1 = w1;
    let r0 = w2;
    let r1 = w3;
    // Step 4: signs back, then the range check at the operand size.
    const qNeg = nNeg !== dNeg;
    if (qNeg) {
      const x = (~q0 >>> 0) + 1;
      q0 = x | 0;
      q1 = (~q1 + (x > 0xffffffff ? 1 : 0)) | 0;
    }
    if (nNeg) {
      const x = (~r0 >>> 0) + 1;
      r0 = x | 0;
      r1 = (~r1 + (x > 0xffffffff ? 1 : 0)) | 0;
    }
    if (size === 4) {
      if (signed ? q1 !== q0 >> 31 : q1 !== 0) divideError();
      if (signed && q0 < 0 !== qNeg && q0 !== 0) divideError();
      c.setR(0, 4, q0, 0);
      c.setR(2, 4, r0, 0);
    } else {
      if (signed && q1 < 0 !== qNeg && (q0 | q1) !== 0) divideError();
      c.setR(0, 8, q0, q1);
      c.setR(2, 8, r0, r1);
    }
  }
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}
