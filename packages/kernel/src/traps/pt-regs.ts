import { type AddressSpace, type Cpu, Reg } from '@int3/cpu';
import { SYSV_ARG_REGS } from '../arch/x86/calling-convention.js';
import { PT_REGS_GPR, PT_REGS_NAMES, type PtRegName } from '../arch/x86/pt-regs-layout.js';

/**
 * `struct pt_regs` of a trapping CPU, as a live view: reading gives the CPU's current value, writing
 * changes what the CPU resumes with. One view per CPU, reused for every trap (no allocation per trap).
 * `orig_ax` is kept here (the CPU has no such register): -1 outside a syscall.
 *
 * @see arch/x86/include/asm/ptrace.h struct pt_regs
 */
export class PtRegs {
  /** `orig_ax`: the syscall number on syscall entry, else -1. */
  origAx = -1n;

  constructor(readonly cpu: Cpu) {}

  get ip(): bigint {
    return this.cpu.rip;
  }
  set ip(v: bigint) {
    this.cpu.rip = v;
  }
  get sp(): bigint {
    return this.cpu.getReg(Reg.RSP);
  }
  set sp(v: bigint) {
    this.cpu.setReg(Reg.RSP, v);
  }
  get flags(): number {
    return this.cpu.rflags;
  }
  set flags(v: number) {
    this.cpu.rflags = v;
  }
  get ax(): bigint {
    return this.cpu.getReg(Reg.RAX);
  }
  set ax(v: bigint) {
    this.cpu.setReg(Reg.RAX, v);
  }

  /** Any member by name (`regs_get_register` by offset, in Linux). */
  get(name: PtRegName): bigint {
    const gpr = PT_REGS_GPR[name];
    if (gpr !== undefined) return this.cpu.getReg(gpr);
    switch (name) {
      case 'ip':
        return this.cpu.rip;
      case 'flags':
        return BigInt(this.cpu.rflags);
      case 'cs':
        return BigInt(this.cpu.cs);
      case 'ss':
        return BigInt(this.cpu.ss);
      default:
        return BigInt.asUintN(64, this.origAx);
    }
  }

  /** Sets a member by name. `cs`/`ss` change the CPU's selectors (and with them its CPL). */
  set(name: PtRegName, value: bigint): void {
    const v = BigInt.asUintN(64, value);
    const gpr = PT_REGS_GPR[name];
    if (gpr !== undefined) {
      this.cpu.setReg(gpr, v);
      return;
    }
    switch (name) {
      case 'ip':
        this.cpu.rip = v;
        return;
      case 'flags':
        this.cpu.rflags = Number(v & 0xffffffffn);
        return;
      case 'cs':
        this.cpu.cs = Number(v & 0xffffn);
        return;
      case 'ss':
        this.cpu.ss = Number(v & 0xffffn);
        return;
      default:
        this.origAx = BigInt.asIntN(64, v);
    }
  }

  /** The `n`th argument of a function at its entry, per the SysV ABI (`regs_get_kernel_argument`). */
  argument(n: number, space: AddressSpace): bigint {
    if (n < SYSV_ARG_REGS.length) return this.cpu.getReg(SYSV_ARG_REGS[n]);
    // Past six, arguments are on the stack above the return address.
    return space.readU64(this.sp + BigInt(8 * (n - SYSV_ARG_REGS.length + 1)));
  }

  /** Writes the whole frame into guest memory in Linux's layout (for guest C handlers). */
  store(space: AddressSpace, address: bigint): void {
    for (let i = 0; i < PT_REGS_NAMES.length; i++) space.writeU64(address + BigInt(i * 8), this.get(PT_REGS_NAMES[i]));
  }

  /** Loads the whole frame back from guest memory (a guest handler may have changed it). */
  load(space: AddressSpace, address: bigint): void {
    for (let i = 0; i < PT_REGS_NAMES.length; i++) this.set(PT_REGS_NAMES[i], space.readU64(address + BigInt(i * 8)));
  }
}
