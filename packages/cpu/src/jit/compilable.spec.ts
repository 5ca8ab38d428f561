import { describe, expect, it } from 'vitest';
import { Insn } from '../insn.js';
import { Op } from '../op.js';
import { HELPER_OPS, isCompilable } from './compilable.js';

function insn(op: number, cc = 0): Insn {
  const i = new Insn();
  i.op = op;
  i.cc = cc;
  return i;
}

describe(isCompilable, () => {
  it('should leave to the interpreter every op that may set attention, trap, leave the CPU or read time', () => {
    const interpreterOnly = [
      Op.Ud,
      Op.Gate,
      Op.Popf,
      Op.Cli,
      Op.Sti,
      Op.Hlt,
      Op.Int3,
      Op.Int,
      Op.Iretq,
      Op.Syscall,
      Op.Sysret,
      Op.Swapgs,
      Op.Rdmsr,
      Op.Wrmsr,
      Op.Cpuid,
      Op.Rdtsc,
      Op.Rdtscp,
      Op.MovToCr,
      Op.MovFromCr,
      Op.In,
      Op.Out,
      Op.Ud2,
      Op.Invlpg,
    ];
    for (const op of interpreterOnly) expect(isCompilable(insn(op)), `op ${op}`).toBe(false);
  });

  it('should leave to the interpreter any op code it does not know (ops added after its table)', () => {
    const known = new Set<number>(Object.values(Op));
    for (let op = 0; op < 256; op++) if (!known.has(op)) expect(isCompilable(insn(op)), `op ${op}`).toBe(false);
  });

  it('should take the executors of HELPER_OPS and the ops it writes out, but not shift /6', () => {
    for (const op of HELPER_OPS.keys()) expect(isCompilable(insn(op))).toBe(true);
    for (const op of [Op.MovRM, Op.AluReg, Op.Jcc, Op.Call, Op.Ret, Op.Lea]) expect(isCompilable(insn(op))).toBe(true);
    expect(isCompilable(insn(Op.Shift, 6))).toBe(false);
  });
});
