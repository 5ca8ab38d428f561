import { type AddressSpace, type Cpu, Reg, type RegIndex } from '@int3/cpu';

/** The registers of the first six integer arguments, in SysV order. */
export const SYSV_ARG_REGS: readonly RegIndex[] = Object.freeze([Reg.RDI, Reg.RSI, Reg.RDX, Reg.RCX, Reg.R8, Reg.R9]);

/** Register names of `struct pt_regs` on x86-64, in layout order. */
export const PT_REGS_NAMES = [
  'r15',
  'r14',
  'r13',
  'r12',
  'bp',
  'bx',
  'r11',
  'r10',
  'r9',
  'r8',
  'ax',
  'cx',
  'dx',
  'si',
  'di',
  'orig_ax',
  'ip',
  'cs',
  'flags',
  'sp',
  'ss',
] as const;

/** One `struct pt_regs` member name. */
export type PtRegName = (typeof PT_REGS_NAMES)[number];

/** `sizeof(struct pt_regs)` on x86-64. */
export const PT_REGS_SIZE = PT_REGS_NAMES.length * 8;

/** Byte offset of each member: `offsetof(struct pt_regs, name)`. */
export const PT_REGS_OFFSET: Readonly<Record<PtRegName, number>> = Object.freeze(
  Object.fromEntries(PT_REGS_NAMES.map((n, i) => [n, i * 8])) as Record<PtRegName, number>,
);

/** The CPU register behind each general-purpose `pt_regs` member (not orig_ax, ip, cs, flags, ss). */
export const PT_REGS_GPR: Readonly<Partial<Record<PtRegName, RegIndex>>> = {
  r15: Reg.R15,
  r14: Reg.R14,
  r13: Reg.R13,
  r12: Reg.R12,
  bp: Reg.RBP,
  bx: Reg.RBX,
  r11: Reg.R11,
  r10: Reg.R10,
  r9: Reg.R9,
  r8: Reg.R8,
  ax: Reg.RAX,
  cx: Reg.RCX,
  dx: Reg.RDX,
  si: Reg.RSI,
  di: Reg.RDI,
  sp: Reg.RSP,
};

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
