import { type Cpu, Reg, type RegIndex } from '@int3/cpu';

/**
 * The part of a CPU's state that belongs to a task: what `switch_to` saves and restores. Unlike
 * `Cpu.saveContext()` it leaves the CPU's own state (MSRs, counters, virtual clock) alone.
 */
export interface TaskRegs {
  readonly gpr: readonly bigint[];
  readonly rip: bigint;
  readonly rflags: number;
  readonly cs: number;
  readonly ss: number;
  readonly fsBase: bigint;
  readonly gsBase: bigint;
  readonly kernelGsBase: bigint;
}

/** Reads a task's registers off a CPU. */
export function saveTaskRegs(cpu: Cpu): TaskRegs {
  const gpr: bigint[] = [];
  for (let r = 0; r < 16; r++) gpr.push(cpu.getReg(r as RegIndex));
  return {
    gpr,
    rip: cpu.rip,
    rflags: cpu.rflags,
    cs: cpu.cs,
    ss: cpu.ss,
    fsBase: cpu.fsBase,
    gsBase: cpu.gsBase,
    kernelGsBase: cpu.kernelGsBase,
  };
}

/** Puts a task's registers on a CPU. */
export function loadTaskRegs(cpu: Cpu, regs: TaskRegs): void {
  for (let r = 0; r < 16; r++) cpu.setReg(r as RegIndex, regs.gpr[r]);
  cpu.cs = regs.cs;
  cpu.ss = regs.ss;
  cpu.rip = regs.rip;
  cpu.rflags = regs.rflags;
  cpu.fsBase = regs.fsBase;
  cpu.gsBase = regs.gsBase;
  cpu.kernelGsBase = regs.kernelGsBase;
}

/** A user-mode register file: everything 0 but what is given (RFLAGS IF set, user selectors). */
export function userTaskRegs(init: {
  rip: bigint;
  rsp: bigint;
  kernelGsBase: bigint;
  gpr?: readonly bigint[];
  rflags?: number;
  fsBase?: bigint;
}): TaskRegs {
  const gpr = init.gpr ? [...init.gpr] : new Array<bigint>(16).fill(0n);
  gpr[Reg.RSP] = init.rsp;
  return {
    gpr,
    rip: init.rip,
    rflags: init.rflags ?? 0x202,
    cs: 0x33,
    ss: 0x2b,
    fsBase: init.fsBase ?? 0n,
    gsBase: 0n,
    kernelGsBase: init.kernelGsBase,
  };
}
