import type { CpuCore } from './cpu-core.js';
import { subAt } from './exec-alu.js';
import type { Insn } from './insn.js';
import { LazyOp } from './lazy-flags.js';
import { Op } from './op.js';

/** Adds `delta` to register `r` at the string instruction's address size. */
function advance(c: CpuCore, r: number, delta: number, a32: boolean): void {
  const x = (c.R[r] >>> 0) + delta;
  c.R[r] = x | 0;
  c.H[r] = a32 ? 0 : (c.H[r] + Math.floor(x / 4294967296)) | 0;
}

/** Source address of movs/lods/cmps: RSI plus an FS/GS base. */
function source(c: CpuCore, i: Insn, a32: boolean): number {
  let lo = c.R[6];
  let hi = a32 ? 0 : c.H[6];
  if (i.seg !== 0) {
    const x = (lo >>> 0) + ((i.seg === 1 ? c.fsLo : c.gsLo) >>> 0);
    hi = (hi + (i.seg === 1 ? c.fsHi : c.gsHi) + (x > 0xffffffff ? 1 : 0)) | 0;
    lo = x | 0;
  }
  c.eah = hi;
  return lo;
}

/**
 * movs/stos/lods/cmps/scas at every width, with rep/repe/repne and DF. Each iteration commits
 * RSI/RDI/RCX before the next, so a fault mid-way restarts with the remaining count.
 * @see Intel SDM Vol. 2B (REP/REPE/REPNE, MOVS, STOS, LODS, CMPS, SCAS)
 */
export function execString(c: CpuCore, i: Insn): void {
  const size = i.size;
  const a32 = i.size2 === 4;
  const rep = i.cc;
  const step = c.flags & 0x400 ? -size : size;
  const op = i.op;
  const compares = op === Op.Cmps || op === Op.Scas;
  for (;;) {
    if (rep !== 0 && c.R[1] === 0 && (a32 || c.H[1] === 0)) break;
    const di = c.R[7];
    const dh = a32 ? 0 : c.H[7];
    switch (op) {
      case Op.Movs: {
        const v = c.load(source(c, i, a32), c.eah, size);
        c.store(di, dh, size, v, c.vh);
        advance(c, 6, step, a32);
        advance(c, 7, step, a32);
        break;
      }
      case Op.Stos:
        c.store(di, dh, size, c.R[0], c.H[0]);
        advance(c, 7, step, a32);
        break;
      case Op.Lods: {
        const v = c.load(source(c, i, a32), c.eah, size);
        c.setR(0, size, v, c.vh);
        advance(c, 6, step, a32);
        break;
      }
      default: {
        let al: number;
        let ah: number;
        if (op === Op.Cmps) {
          al = c.load(source(c, i, a32), c.eah, size);
          ah = c.vh;
        } else {
          al = c.getR(0, size);
          ah = c.vh;
        }
        const bl = c.load(di, dh, size);
        const bh = c.vh;
        const rl = subAt(c, size, al, ah, bl, bh);
        const rh = c.vh;
        c.setLazy(LazyOp.Sub, size, al, ah, bl, bh, rl, rh, 0);
        if (op === Op.Cmps) advance(c, 6, step, a32);
        advance(c, 7, step, a32);
      }
    }
    if (rep === 0) break;
    advance(c, 1, -1, a32);
    if (compares && c.getZF() !== (rep === 1 ? 1 : 0)) break;
  }
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}
