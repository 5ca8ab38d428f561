import type { Insn } from '../insn.js';
import { Op } from '../op.js';
import { EXECUTORS } from '../semantics/executors.js';

/**
 * Ops the compiler runs by calling the interpreter's own executor (exec-*.ts) with the registers and
 * flags written back first: one source of truth for their semantics. The value names the executor
 * (semantics/executors.ts, the table execRare's switch is generated from).
 */
export const HELPER_OPS: ReadonlyMap<number, string> = new Map(
  EXECUTORS.filter((e) => e.compiled).flatMap((e) => e.ops.map((op) => [Op[op], e.exec] as const)),
);

/** Ops the compiler writes out as JS itself (some forms fall back to the executor of HELPER_OPS). */
const INLINE_OPS: ReadonlySet<number> = new Set([
  Op.Nop,
  Op.MovRR,
  Op.MovRI,
  Op.MovRM,
  Op.MovMR,
  Op.MovMI,
  Op.Movzx,
  Op.Movsx,
  Op.Lea,
  Op.Add,
  Op.Or,
  Op.Adc,
  Op.Sbb,
  Op.And,
  Op.Sub,
  Op.Xor,
  Op.Cmp,
  Op.Test,
  Op.Inc,
  Op.Dec,
  Op.Not,
  Op.Neg,
  Op.Call,
  Op.Ret,
  Op.Jmp,
  Op.Jcc,
  Op.Setcc,
  Op.Cmovcc,
  Op.Cbw,
  Op.Cwd,
  Op.AluReg,
]);

/**
 * Whether the compiler takes `i`. Everything else (system instructions, anything that may set
 * `attention` — sti, popf, wrmsr, mov cr, invlpg, iretq… —, traps, gates, #UD, and any op added after
 * this table) ends the block before it, and the interpreter runs it.
 */
export function isCompilable(i: Insn): boolean {
  return INLINE_OPS.has(i.op) || HELPER_OPS.has(i.op);
}
