import type { CpuCore } from './cpu-core.js';
import { type Insn, OperandKind } from './insn.js';
import { msb, sizeMask } from './lazy-flags.js';
import { Op } from './op.js';

let hiOut = 0;

/** 64-bit shift left by 1..63; high half in hiOut. */
function shl64(l: number, h: number, n: number): number {
  if (n < 32) {
    hiOut = (h << n) | (l >>> (32 - n));
    return l << n;
  }
  hiOut = l << (n - 32);
  return 0;
}

/** 64-bit logical (or arithmetic) shift right by 1..63; high half in hiOut. */
function shr64(l: number, h: number, n: number, arith: boolean): number {
  if (n < 32) {
    hiOut = arith ? h >> n : (h >>> n) | 0;
    return (l >>> n) | (h << (32 - n));
  }
  hiOut = arith ? h >> 31 : 0;
  return arith ? h >> (n - 32) : (h >>> (n - 32)) | 0;
}

function bit64(l: number, h: number, k: number): number {
  return k < 32 ? (l >>> k) & 1 : (h >>> (k - 32)) & 1;
}

function signExtend(v: number, size: number): number {
  return size === 1 ? (v << 24) >> 24 : size === 2 ? (v << 16) >> 16 : v;
}

function count(c: CpuCore, i: Insn): number {
  return (i.sk === OperandKind.Imm ? i.il : c.R[1]) & (i.size === 8 ? 63 : 31);
}

// @generated-begin: scripts/gen-dispatch.mjs writes execShift from src/semantics/exec-shift-source.ts
/**
 * rol/ror/rcl/rcr/shl/shr/sar. A masked count of 0 changes nothing; OF uses the count-1 formula for
 * every count (the SDM leaves it undefined otherwise), AF reads 0 (undefined).
 * @see Intel SDM Vol. 2B (SAL/SAR/SHL/SHR, RCL/RCR/ROL/ROR)
 */
// biome-ignore format: generated (the formatter would re-wrap what the generator writes)
export function execShift(c: CpuCore, i: Insn): void {
  const size = i.size;
  const n = count(c, i);
  const l = c.readDst(i);
  const h = c.vh;
  if (n !== 0) {
    const mask = sizeMask(size);
    let rl: number;
    let rh = 0;
    let cf: number;
    let of: number;
    switch (i.cc) {
      case 4: // shl
        if (size === 8) {
          if (n < 32) {
            rl = l << n;
            rh = (h << n) | (l >>> (32 - n));
            cf = (h >>> (32 - n)) & 1;
            of = (rh >>> 31) ^ cf;
          } else {
            rl = 0;
            rh = l << (n - 32);
            cf = ((n === 32 ? h : l >>> (64 - n)) & 1);
            of = (rh >>> 31) ^ cf;
          }
        } else if (size === 4) {
          rl = l << n;
          cf = (l >>> (32 - n)) & 1;
          of = (rl >>> 31) ^ cf;
        } else {
          rl = (l << n) & mask;
          cf = n <= size * 8 ? (l >>> (size * 8 - n)) & 1 : 0;
          of = msb(rl, 0, size) ^ cf;
        }
        c.writeDst(i, rl, rh);
        c.setResult(size, rl, rh, cf, of);
        break;
      case 5: // shr
        if (size === 8) {
          if (n < 32) {
            rl = (l >>> n) | (h << (32 - n));
            rh = (h >>> n) | 0;
            cf = (l >>> (n - 1)) & 1;
            of = h >>> 31;
          } else {
            rl = (h >>> (n - 32)) | 0;
            rh = 0;
            cf = ((n === 32 ? l >>> 31 : h >>> (n - 33)) & 1);
            of = h >>> 31;
          }
        } else if (size === 4) {
          rl = (l >>> n) | 0;
          cf = (l >>> (n - 1)) & 1;
          of = l >>> 31;
        } else {
          rl = (l >>> n) & mask;
          cf = (l >>> (n - 1)) & 1;
          of = msb(l, 0, size);
        }
        c.writeDst(i, rl, rh);
        c.setResult(size, rl, rh, cf, of);
        break;
      case 7: // sar
        if (size === 8) {
          if (n < 32) {
            rl = (l >>> n) | (h << (32 - n));
            rh = h >> n;
            cf = (l >>> (n - 1)) & 1;
            of = 0;
          } else {
            rl = h >> (n - 32);
            rh = h >> 31;
            cf = ((n === 32 ? l >>> 31 : h >>> (n - 33)) & 1);
            of = 0;
          }
        } else if (size === 4) {
          rl = l >> n;
          cf = (l >> (n - 1)) & 1;
          of = 0;
        } else {
          const v = signExtend(l, size);
          rl = (v >> n) & mask;
          cf = (v >> (n - 1)) & 1;
          of = 0;
        }
        c.writeDst(i, rl, rh);
        c.setResult(size, rl, rh, cf, of);
        break;
      default:
        rotate(c, i, l, h, n);
    }
  } else if (i.dk === 1 /* OperandKind.Reg */ && size === 4) c.H[i.dr] = 0;
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}
// @generated-end

function rotate(c: CpuCore, i: Insn, l: number, h: number, masked: number): void {
  const size = i.size;
  const bits = size * 8;
  let rl = l;
  let rh = h;
  let cf = c.getCF();
  let of: number;
  if (i.cc <= 1) {
    const n = masked % bits;
    if (n !== 0) {
      const left = i.cc === 0 ? n : bits - n;
      if (size === 8) {
        const al = shl64(l, h, left);
        const ah = hiOut;
        rl = al | shr64(l, h, 64 - left, false);
        rh = ah | hiOut;
      } else rl = ((l << left) | (l >>> (bits - left))) & sizeMask(size);
    }
    if (i.cc === 0) {
      cf = rl & 1;
      of = msb(rl, rh, size) ^ cf;
    } else {
      cf = msb(rl, rh, size);
      of = cf ^ (size === 8 ? (rh >>> 30) & 1 : (rl >>> (bits - 2)) & 1);
    }
  } else {
    const n = size === 1 ? masked % 9 : size === 2 ? masked % 17 : masked;
    of = i.cc === 3 ? msb(l, h, size) ^ cf : 0;
    for (let k = 0; k < n; k++) {
      if (i.cc === 2) {
        const out = msb(rl, rh, size);
        if (size === 8) {
          rh = (rh << 1) | (rl >>> 31);
          rl = (rl << 1) | cf;
        } else rl = ((rl << 1) | cf) & sizeMask(size);
        cf = out;
      } else {
        const out = rl & 1;
        if (size === 8) {
          rl = (rl >>> 1) | (rh << 31);
          rh = (rh >>> 1) | (cf << 31);
        } else rl = ((rl >>> 1) | (cf << (bits - 1))) & sizeMask(size);
        cf = out;
      }
    }
    if (i.cc === 2) of = msb(rl, rh, size) ^ cf;
  }
  if (size !== 8) rh = 0;
  c.writeDst(i, rl, rh);
  c.setArith(0x801, cf | (of << 11));
}

/**
 * shld/shrd (gcc's __int128 shifts). A masked count of 0 changes nothing; AF reads 0 (undefined).
 * @see Intel SDM Vol. 2B (SHLD, SHRD)
 */
export function execDoubleShift(c: CpuCore, i: Insn): void {
  const size = i.size;
  const n = (i.r3 === 1 ? c.R[1] : i.i2) & (size === 8 ? 63 : 31);
  const l = c.readDst(i);
  const h = c.vh;
  const sl = c.getR(i.sr, size);
  const sh = c.vh;
  if (n !== 0) {
    let rl: number;
    let rh = 0;
    let cf: number;
    if (i.op === Op.Shld) {
      if (size === 8) {
        rl = shl64(l, h, n);
        rh = hiOut;
        rl |= shr64(sl, sh, 64 - n, false);
        rh |= hiOut;
        cf = bit64(l, h, 64 - n);
      } else if (size === 4) {
        rl = (l << n) | (sl >>> (32 - n));
        cf = (l >>> (32 - n)) & 1;
      } else {
        // 16-bit counts above 16 are undefined; hardware shifts the 48-bit dst:src:src, as here.
        const x = l * 4294967296 + sl * 65536 + sl;
        rl = Math.floor(x / 2 ** (32 - n)) & 0xffff;
        cf = Math.floor(x / 2 ** (48 - n)) & 1;
      }
    } else if (size === 8) {
      rl = shr64(l, h, n, false);
      rh = hiOut;
      rl |= shl64(sl, sh, 64 - n);
      rh |= hiOut;
      cf = bit64(l, h, n - 1);
    } else if (size === 4) {
      rl = (l >>> n) | (sl << (32 - n));
      cf = (l >>> (n - 1)) & 1;
    } else {
      // 16-bit counts above 16 are undefined; hardware shifts the 48-bit src:src:dst, as here.
      const x = sl * 4294967296 + sl * 65536 + l;
      rl = Math.floor(x / 2 ** n) & 0xffff;
      cf = Math.floor(x / 2 ** (n - 1)) & 1;
    }
    c.writeDst(i, rl, rh);
    c.setResult(size, rl, rh, cf, msb(rl, rh, size) ^ msb(l, h, size));
  } else if (i.dk === OperandKind.Reg && size === 4) c.H[i.dr] = 0;
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}
