import type { Insn } from '../insn.js';

/**
 * Ops the compiler runs by calling the interpreter's own executor (exec-*.ts) with the registers and
 * flags written back first: one source of truth for their semantics. The value names the executor.
 */
export const HELPER_OPS: ReadonlyMap<number, string> = new Map([
  [24 /* Op.Shift */, 'execShift'],
  [25 /* Op.Shld */, 'execDoubleShift'],
  [26 /* Op.Shrd */, 'execDoubleShift'],
  [27 /* Op.Imul1 */, 'execMul'],
  [28 /* Op.Imul2 */, 'execImul2'],
  [29 /* Op.Mul */, 'execMul'],
  [30 /* Op.Div */, 'execDiv'],
  [31 /* Op.Idiv */, 'execDiv'],
  [45 /* Op.Xchg */, 'execExchange'],
  [46 /* Op.Cmpxchg */, 'execExchange'],
  [47 /* Op.Xadd */, 'execExchange'],
  [48 /* Op.Bswap */, 'execBitScan'],
  [49 /* Op.Bsf */, 'execBitScan'],
  [50 /* Op.Bsr */, 'execBitScan'],
  [51 /* Op.Tzcnt */, 'execBitScan'],
  [52 /* Op.Lzcnt */, 'execBitScan'],
  [53 /* Op.Popcnt */, 'execBitScan'],
  [54 /* Op.Bt */, 'execBitTest'],
  [55 /* Op.Movs */, 'execString'],
  [56 /* Op.Stos */, 'execString'],
  [57 /* Op.Lods */, 'execString'],
  [58 /* Op.Cmps */, 'execString'],
  [59 /* Op.Scas */, 'execString'],
  [32 /* Op.Push */, 'execFlow'],
  [33 /* Op.Pop */, 'execFlow'],
  [35 /* Op.CallInd */, 'execFlow'],
  [38 /* Op.JmpInd */, 'execFlow'],
  [42 /* Op.Leave */, 'execFlow'],
  [89 /* Op.Jrcxz */, 'execFlow'],
  [90 /* Op.Loop */, 'execFlow'],
  [60 /* Op.Clc */, 'execFlags'],
  [61 /* Op.Stc */, 'execFlags'],
  [62 /* Op.Cmc */, 'execFlags'],
  [63 /* Op.Cld */, 'execFlags'],
  [64 /* Op.Std */, 'execFlags'],
  [65 /* Op.Lahf */, 'execFlags'],
  [66 /* Op.Sahf */, 'execFlags'],
  [67 /* Op.Pushf */, 'execFlags'],
]);

/** Ops the compiler writes out as JS itself (some forms fall back to the executor of HELPER_OPS). */
const INLINE_OPS = new Set([
  2 /* Op.Nop */, 3 /* Op.MovRR */, 4 /* Op.MovRI */, 5 /* Op.MovRM */, 6 /* Op.MovMR */, 7 /* Op.MovMI */,
  8 /* Op.Movzx */, 9 /* Op.Movsx */, 10 /* Op.Lea */, 11 /* Op.Add */, 12 /* Op.Or */, 13 /* Op.Adc */,
  14 /* Op.Sbb */, 15 /* Op.And */, 16 /* Op.Sub */, 17 /* Op.Xor */, 18 /* Op.Cmp */, 19 /* Op.Test */,
  20 /* Op.Inc */, 21 /* Op.Dec */, 22 /* Op.Not */, 23 /* Op.Neg */, 34 /* Op.Call */, 36 /* Op.Ret */,
  37 /* Op.Jmp */, 39 /* Op.Jcc */, 40 /* Op.Setcc */, 41 /* Op.Cmovcc */, 43 /* Op.Cbw */, 44 /* Op.Cwd */,
  91 /* Op.AluReg */,
]);

/**
 * Whether the compiler takes `i`. Everything else (system instructions, anything that may set
 * `attention` — sti, popf, wrmsr, mov cr, invlpg, iretq… —, traps, gates, #UD, and any op added after
 * this table) ends the block before it, and the interpreter runs it.
 */
export function isCompilable(i: Insn): boolean {
  const op = i.op;
  // shl/shr/sar r, imm at 32/64 bits have an interpreter fast path of their own; /6 (sal) there
  // differs from execShift's, so that one form stays with the interpreter.
  if (op === 24 /* Op.Shift */ && i.cc === 6) return false;
  return INLINE_OPS.has(op) || HELPER_OPS.has(op);
}
