import { type Cpu, Reg } from '@int3/cpu';

/** gdb's amd64 general-register order (rax rbx rcx rdx rsi rdi rbp rsp r8…r15) as Intel numbers. */
const GDB_GPR_ORDER = [
  Reg.RAX,
  Reg.RBX,
  Reg.RCX,
  Reg.RDX,
  Reg.RSI,
  Reg.RDI,
  Reg.RBP,
  Reg.RSP,
  Reg.R8,
  Reg.R9,
  Reg.R10,
  Reg.R11,
  Reg.R12,
  Reg.R13,
  Reg.R14,
  Reg.R15,
] as const;

/**
 * x87 state as FNINIT leaves it (control word 0x37f, every tag empty): int3's CPU has no x87 unit, so
 * this is what the FPU of a CPU that never used it holds.
 */
const X87_FNINIT = [0x37fn, 0n, 0xffffn, 0n, 0n, 0n, 0n, 0n] as const;

/**
 * The registers of a CPU in gdb's amd64 numbering (see AMD64_REGISTERS): the general registers, rip,
 * eflags, the cs and ss selectors (long mode ignores ds, es, fs and gs, which int3 does not model:
 * they read 0, as Linux leaves them), the x87 registers, fs_base and gs_base.
 */
export function cpuRegisters(cpu: Cpu): bigint[] {
  const out: bigint[] = GDB_GPR_ORDER.map((r) => cpu.getReg(r));
  out.push(cpu.rip, BigInt(cpu.rflags), BigInt(cpu.cs), BigInt(cpu.ss), 0n, 0n, 0n, 0n);
  for (let i = 0; i < 8; i++) out.push(0n);
  out.push(...X87_FNINIT, cpu.fsBase, cpu.gsBase);
  return out;
}

/** True for the registers {@link setCpuRegister} writes (int3 models no x87, ds, es, fs or gs). */
export function isModelledRegister(regno: number): boolean {
  return regno <= 17 || regno === 40 || regno === 41;
}

/**
 * Writes register `regno` (gdb's numbering) of a CPU; false for a register int3 does not model (the
 * x87 ones, ds, es, fs, gs), which gdb is refused.
 */
export function setCpuRegister(cpu: Cpu, regno: number, value: bigint): boolean {
  if (regno < 16) cpu.setReg(GDB_GPR_ORDER[regno], value);
  else if (regno === 16) cpu.rip = value;
  else if (regno === 17) cpu.rflags = Number(value & 0xffffffffn);
  else if (regno === 40) cpu.fsBase = value;
  else if (regno === 41) cpu.gsBase = value;
  else return false;
  return true;
}
