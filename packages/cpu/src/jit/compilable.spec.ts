import { describe, expect, it } from 'vitest';
import { decodeInsn } from '../decode.js';
import { Insn } from '../insn.js';
import { Op } from '../op.js';
import { HELPER_OPS, isCompilable } from './compilable.js';

function insn(op: number): Insn {
  const i = new Insn();
  i.op = op;
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

  it('should take the executors of HELPER_OPS and the ops it writes out', () => {
    for (const op of HELPER_OPS.keys()) expect(isCompilable(insn(op))).toBe(true);
    for (const op of [Op.MovRM, Op.AluReg, Op.Jcc, Op.Call, Op.Ret, Op.Lea]) expect(isCompilable(insn(op))).toBe(true);
  });

  it("should take sal (C1 /6, an alias the SDM gives shl's semantics): it decodes as shl", () => {
    const sal = decodeInsn(Uint8Array.from([0x48, 0xc1, 0xf0, 0x05]), 0x400000n);
    const shl = decodeInsn(Uint8Array.from([0x48, 0xc1, 0xe0, 0x05]), 0x400000n);
    expect(sal).toMatchObject({ op: Op.Shift, cc: shl?.cc });
    expect(isCompilable(sal!)).toBe(true);
  });
});
