import type { Op } from '../op.js';

/** An interpreter executor (exec-*.ts) and the ops it runs. */
export interface Executor {
  /** Its name, as exec-*.ts exports it (execFlags is CpuSystem's method). */
  readonly exec: string;
  readonly ops: readonly (keyof typeof Op)[];
  /** Reached through execRare's switch (else the dispatch calls it, or execRare's default does). */
  readonly rare: boolean;
  /** Whether the compiler calls it for these ops (with the registers and flags written back first). */
  readonly compiled: boolean;
}

/**
 * Which executor runs each op (or the forms of it) the dispatch does not run inline (for execFlags,
 * only the ops the compiler calls it for: it runs every flag and system instruction). The one table
 * execRare's switch and the dispatch's calls out are generated from, and the compiler's HELPER_OPS is
 * read from.
 */
export const EXECUTORS: readonly Executor[] = [
  // The forms the dispatch and the compiler do not take inline (both write the common ones out).
  { exec: 'execAluReg', ops: ['AluReg'], rare: false, compiled: false },
  {
    exec: 'execAlu',
    ops: ['Add', 'Or', 'Adc', 'Sbb', 'And', 'Sub', 'Xor', 'Cmp', 'Test'],
    rare: false,
    compiled: false,
  },
  { exec: 'execUnary', ops: ['Neg', 'Inc', 'Dec', 'Not'], rare: false, compiled: false },
  { exec: 'execExtend', ops: ['Movsx'], rare: false, compiled: false },
  { exec: 'execConditional', ops: ['Setcc', 'Cmovcc'], rare: false, compiled: false },
  { exec: 'execShift', ops: ['Shift'], rare: false, compiled: true },
  { exec: 'execDoubleShift', ops: ['Shld', 'Shrd'], rare: true, compiled: true },
  { exec: 'execMul', ops: ['Imul1', 'Mul'], rare: true, compiled: true },
  { exec: 'execImul2', ops: ['Imul2'], rare: true, compiled: true },
  { exec: 'execDiv', ops: ['Div', 'Idiv'], rare: true, compiled: true },
  { exec: 'execExchange', ops: ['Xchg', 'Cmpxchg', 'Xadd'], rare: true, compiled: true },
  { exec: 'execCmpxchgWide', ops: ['CmpxchgWide'], rare: true, compiled: false },
  { exec: 'execBitScan', ops: ['Bswap', 'Bsf', 'Bsr', 'Tzcnt', 'Lzcnt', 'Popcnt'], rare: true, compiled: true },
  { exec: 'execBmi1', ops: ['Bmi1'], rare: true, compiled: false },
  { exec: 'execBitTest', ops: ['Bt'], rare: true, compiled: true },
  { exec: 'execString', ops: ['Movs', 'Stos', 'Lods', 'Cmps', 'Scas'], rare: true, compiled: true },
  {
    exec: 'execFlow',
    ops: ['Push', 'Pop', 'CallInd', 'JmpInd', 'Leave', 'Jrcxz', 'Loop'],
    rare: false,
    compiled: true,
  },
  {
    exec: 'execFlags',
    ops: ['Clc', 'Stc', 'Cmc', 'Cld', 'Std', 'Lahf', 'Sahf', 'Pushf'],
    rare: false,
    compiled: true,
  },
];

/** The executor of `op` (each op has at most one: executors.spec.ts). */
export function executorOf(op: keyof typeof Op): Executor {
  const e = EXECUTORS.find((x) => x.ops.includes(op));
  if (e === undefined) throw new Error(`int3 semantics: no executor runs ${op}`);
  return e;
}
