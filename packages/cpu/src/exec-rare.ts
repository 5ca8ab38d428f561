import type { CpuSystem } from './cpu-system.js';
import { execCmpxchgWide, execExchange } from './exec-alu.js';
import { execBitScan, execBitTest, execBmi1 } from './exec-bits.js';
import { execDiv, execImul2, execMul } from './exec-muldiv.js';
import { execDoubleShift } from './exec-shift.js';
import { execString } from './exec-string.js';
import type { Insn } from './insn.js';

// @generated-begin: scripts/gen-dispatch.mjs writes execRare from the table in src/semantics/executors.ts
/**
 * The instructions the run loop does not dispatch inline: multiply/divide, double shifts, exchanges,
 * bit scans and tests, string instructions, then flags and system instructions. Returns 1 for hlt,
 * 2 for a software-interrupt trap, else 0.
 * @see Intel SDM Vol. 2 (instruction set reference)
 */
export function execRare(c: CpuSystem, i: Insn): number {
  switch (i.op) {
    case 25 /* Op.Shld */:
    case 26 /* Op.Shrd */:
      execDoubleShift(c, i);
      return 0;
    case 27 /* Op.Imul1 */:
    case 29 /* Op.Mul */:
      execMul(c, i);
      return 0;
    case 28 /* Op.Imul2 */:
      execImul2(c, i);
      return 0;
    case 30 /* Op.Div */:
    case 31 /* Op.Idiv */:
      execDiv(c, i);
      return 0;
    case 45 /* Op.Xchg */:
    case 46 /* Op.Cmpxchg */:
    case 47 /* Op.Xadd */:
      execExchange(c, i);
      return 0;
    case 92 /* Op.CmpxchgWide */:
      execCmpxchgWide(c, i);
      return 0;
    case 48 /* Op.Bswap */:
    case 49 /* Op.Bsf */:
    case 50 /* Op.Bsr */:
    case 51 /* Op.Tzcnt */:
    case 52 /* Op.Lzcnt */:
    case 53 /* Op.Popcnt */:
      execBitScan(c, i);
      return 0;
    case 96 /* Op.Bmi1 */:
      execBmi1(c, i);
      return 0;
    case 54 /* Op.Bt */:
      execBitTest(c, i);
      return 0;
    case 55 /* Op.Movs */:
    case 56 /* Op.Stos */:
    case 57 /* Op.Lods */:
    case 58 /* Op.Cmps */:
    case 59 /* Op.Scas */:
      execString(c, i);
      return 0;
    default:
      return c.execFlags(i);
  }
}
// @generated-end
