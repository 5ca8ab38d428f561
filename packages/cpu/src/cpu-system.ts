import { CpuCore, hi32, lo32, toBig } from './cpu-core.js';
import { CpuFault } from './cpu-fault.js';
import { ExceptionVector } from './exception-vector.js';
import type { Insn } from './insn.js';
import { Msr } from './msr.js';

const GP0 = ExceptionVector.GeneralProtection;
/** CR4.FSGSBASE (bit 16): enables rdfsbase and its kin. */
const CR4_FSGSBASE = 1n << 16n;
/** CR0's defined bits: PE, MP, EM, TS, ET, NE, WP, AM, NW, CD, PG (the others of 31:0 are ignored). */
const CR0_DEFINED = 0xe005003fn;
const CR0_PE = 1n;
const CR0_ET = 1n << 4n;
const CR0_NW = 1n << 29n;
const CR0_CD = 1n << 30n;
const CR0_PG = 1n << 31n;
/**
 * The CR4 bits this CPU has (those of the features CPUID reports): TSD (rdtsc at CPL 3), PAE and
 * FSGSBASE. Any other bit is reserved here, and MOV to CR4 setting one raises #GP(0) — a feature a
 * guest switched on must not be silently absent (SMEP, SMAP, PCIDE, UMIP, …).
 */
const CR4_KNOWN = (1n << 2n) | (1n << 5n) | CR4_FSGSBASE;
const CR4_PAE = 1n << 5n;
/** MAXPHYADDR is 36 when CPUID has no leaf 80000008H (Intel SDM Vol. 3A §4.1.4): CR3's bits 63:36 are reserved. */
const CR3_RESERVED = ~((1n << 36n) - 1n) & ((1n << 64n) - 1n);
/** EFER's writable bits: SCE, LME, NXE (LMA is the CPU's own: written values are ignored). */
const EFER_WRITABLE = 0x901n;
const EFER_LMA = 1n << 10n;
const EFER_LME = 1n << 8n;
/** RFLAGS bits popf/iret may change at CPL 0 (CF PF AF ZF SF TF IF DF OF NT AC ID). */
const POPF_MASK = 0x244fd5;

/** An I/O port space (`in`/`out`). */
export interface PortIo {
  in(port: number, size: number): number;
  out(port: number, size: number, value: number): void;
}

/**
 * The system half of the CPU: control registers, MSRs, privilege level and the kernel-only
 * instructions (syscall/sysret, iretq, swapgs, rdmsr/wrmsr, cpuid, rdtsc, mov CRn, in/out).
 * @see Intel SDM Vol. 3A §2.5 (control registers), §5.8.8 (SYSCALL/SYSRET), Vol. 4 (MSRs)
 */
export class CpuSystem extends CpuCore {
  cr3Value = 0n;
  cr4Value = 0x20n;
  efer = 0xd01n;
  star = 0n;
  lstar = 0n;
  fmask = 0n;
  kernelGsBaseValue = 0n;
  tscOffset = 0;
  csValue = 0x10;
  ssValue = 0x18;
  cpuId = 0;
  retiredCount = 0;
  virtualCount = 0;
  /** Vector of an external interrupt waiting for IF=1, or -1. */
  pendingVector = -1;
  /** `retiredCount` value at which the STI interrupt shadow still blocks interrupts. */
  shadowAt = -1;
  /** The #UD instruction being reported (for its bytes and mnemonic). */
  udInsn: Insn | null = null;
  /** Vector of the int3/int n trap being reported. */
  trapVector = 0;
  io: PortIo | undefined;

  /** Sets CS (and CPL = CS & 3), flushing the TLB when the privilege level changes. */
  setCs(cs: number): void {
    this.csValue = cs & 0xffff;
    const cpl = (cs & 3) === 3 ? 3 : 0;
    if (cpl !== this.cplValue) {
      this.cplValue = cpl;
      this.flushTlb();
    }
  }

  /**
   * Loads RFLAGS from a popped value (popf, iret), honouring which bits the current privilege may
   * change: IOPL only at CPL 0, IF only when CPL <= IOPL; the others are silently kept.
   * @see Intel SDM Vol. 2B (POPF/POPFQ), Vol. 2A (IRET/IRETD/IRETQ) "Operation"
   */
  loadFlags(v: number, mask: number): void {
    const old = this.materialize();
    let m = this.cplValue === 0 ? mask | 0x3000 : mask & ~0x3000;
    if (this.cplValue > ((old >> 12) & 3)) m &= ~0x200;
    this.flags = (old & ~m) | (v & m) | 2;
  }

  readMsrValue(index: number): bigint {
    switch (index >>> 0) {
      case Msr.EFER:
        return this.efer;
      case Msr.STAR:
        return this.star;
      case Msr.LSTAR:
        return this.lstar;
      case Msr.FMASK:
        return this.fmask;
      case Msr.FS_BASE:
        return toBig(this.fsLo, this.fsHi);
      case Msr.GS_BASE:
        return toBig(this.gsLo, this.gsHi);
      case Msr.KERNEL_GS_BASE:
        return this.kernelGsBaseValue;
      case Msr.TSC:
        return BigInt(this.virtualCount + this.tscOffset);
      default:
        throw new CpuFault(GP0, 0);
    }
  }

  writeMsrValue(index: number, v: bigint): void {
    v = BigInt.asUintN(64, v);
    const n = index >>> 0;
    const address = n === Msr.FS_BASE || n === Msr.GS_BASE || n === Msr.KERNEL_GS_BASE || n === Msr.LSTAR;
    // A segment base or the syscall entry must be canonical (bits 63:47 all equal), as WRMSR checks.
    if (address && v >> 47n !== 0n && v >> 47n !== 0x1ffffn) throw new CpuFault(GP0, 0);
    switch (n) {
      case Msr.EFER:
        // Reserved bits, and LME changed while paging is on, raise #GP(0). @see Intel SDM Vol. 3A §2.2.1, §9.8.5
        if (v & ~(EFER_WRITABLE | EFER_LMA) || ((v ^ this.efer) & EFER_LME && this.cr0Value & CR0_PG))
          throw new CpuFault(GP0, 0);
        this.efer = (v & EFER_WRITABLE) | (this.efer & EFER_LMA);
        return;
      case Msr.STAR:
        this.star = v;
        return;
      case Msr.LSTAR:
        this.lstar = v;
        return;
      case Msr.FMASK:
        this.fmask = v;
        return;
      case Msr.FS_BASE:
        this.fsLo = lo32(v);
        this.fsHi = hi32(v);
        return;
      case Msr.GS_BASE:
        this.gsLo = lo32(v);
        this.gsHi = hi32(v);
        return;
      case Msr.KERNEL_GS_BASE:
        this.kernelGsBaseValue = v;
        return;
      case Msr.TSC:
        this.tscOffset = Number(v) - this.virtualCount;
        return;
      default:
        throw new CpuFault(GP0, 0);
    }
  }

  /** Flag, interrupt-flag and trap instructions; everything else goes to execSystem. */
  execFlags(i: Insn): number {
    switch (i.op) {
      case 60 /* Op.Clc */:
      case 61 /* Op.Stc */:
      case 62 /* Op.Cmc */:
        this.setArith(1, i.op === 60 /* Op.Clc */ ? 0 : i.op === 61 /* Op.Stc */ ? 1 : this.getCF() ^ 1);
        break;
      case 63 /* Op.Cld */:
        this.flags &= ~0x400;
        break;
      case 64 /* Op.Std */:
        this.flags |= 0x400;
        break;
      case 65 /* Op.Lahf */:
        this.setR(16, 1, (this.materialize() & 0xd5) | 2, 0);
        break;
      case 66 /* Op.Sahf */:
        this.setArith(0xd5, (this.R[0] >> 8) & 0xd5);
        break;
      case 67 /* Op.Pushf */:
        // pushfq clears VM and RF in the copy; pushfw pushes FLAGS, the low 16 bits.
        this.push(i.size, this.materialize() & (i.size === 8 ? 0xfcffff : 0xffff), 0);
        break;
      case 68 /* Op.Popf */:
        {
          const v = this.peek(i.size);
          this.popCommit(i.size);
          this.loadFlags(v, i.size === 8 ? POPF_MASK : POPF_MASK & 0xffff);
          break;
        }
      case 69 /* Op.Cli */:
        this.ioPrivileged();
        this.flags &= ~0x200;
        break;
      case 70 /* Op.Sti */:
        this.ioPrivileged();
        if (!(this.flags & 0x200)) this.shadowAt = this.retiredCount + 1;
        this.flags |= 0x200;
        break;
      case 72 /* Op.Int3 */:
      case 73 /* Op.Int */:
        // A trap: it retires and reports RIP after itself.
        this.trapVector = i.op === 72 /* Op.Int3 */ ? ExceptionVector.Breakpoint : i.il;
        this.ripLo = i.nl;
        this.ripHi = i.nh;
        return 2;
      case 0 /* Op.Ud */:
      case 87 /* Op.Ud2 */:
        this.udInsn = i;
        throw new CpuFault(ExceptionVector.InvalidOpcode, undefined);
      default:
        return this.execSystem(i);
    }
    this.ripLo = i.nl;
    this.ripHi = i.nh;
    return 0;
  }

  private next(i: Insn): void {
    this.ripLo = i.nl;
    this.ripHi = i.nh;
  }

  /** Executes a system instruction. Returns 1 for hlt, else 0. */
  execSystem(i: Insn): number {
    switch (i.op) {
      case 74 /* Op.Iretq */:
        this.iretq();
        return 0;
      case 75 /* Op.Syscall */:
        this.syscall(i);
        return 0;
      case 76 /* Op.Sysret */:
        this.sysret();
        return 0;
      case 71 /* Op.Hlt */:
        this.privileged();
        this.next(i);
        return 1;
      case 77 /* Op.Swapgs */:
        {
          this.privileged();
          const gs = toBig(this.gsLo, this.gsHi);
          this.gsLo = lo32(this.kernelGsBaseValue);
          this.gsHi = hi32(this.kernelGsBaseValue);
          this.kernelGsBaseValue = gs;
          break;
        }
      case 78 /* Op.Rdmsr */:
        {
          this.privileged();
          const v = this.readMsrValue(this.R[1]);
          this.setR(0, 4, lo32(v), 0);
          this.setR(2, 4, hi32(v), 0);
          break;
        }
      case 79 /* Op.Wrmsr */:
        this.privileged();
        this.writeMsrValue(this.R[1], toBig(this.R[0], this.R[2]));
        break;
      case 80 /* Op.Cpuid */:
        this.cpuid();
        break;
      case 81 /* Op.Rdtsc */:
      case 82 /* Op.Rdtscp */:
        {
          if (this.cplValue === 3 && this.cr4Value & 4n) throw new CpuFault(GP0, 0);
          const t = this.virtualCount + this.tscOffset;
          this.setR(0, 4, t | 0, 0);
          this.setR(2, 4, Math.floor(t / 4294967296) | 0, 0);
          if (i.op === 82 /* Op.Rdtscp */) this.setR(1, 4, this.cpuId, 0);
          break;
        }
      case 83 /* Op.MovToCr */:
      case 84 /* Op.MovFromCr */:
        this.movCr(i);
        break;
      case 85 /* Op.In */:
      case 86 /* Op.Out */:
        this.inOut(i);
        break;
      case 88 /* Op.Invlpg */:
        this.privileged();
        this.flushTlb();
        break;
      case 93 /* Op.RdSegBase */:
      case 94 /* Op.WrSegBase */:
        this.segBase(i);
        break;
      default:
        throw new CpuFault(ExceptionVector.InvalidOpcode, undefined);
    }
    this.next(i);
    return 0;
  }

  /**
   * rdfsbase/rdgsbase/wrfsbase/wrgsbase, at any CPL once CR4.FSGSBASE is set (else #UD). The 32-bit
   * forms read the low half zero-extended and write a zero-extended base; a 64-bit base must be
   * canonical (else #GP(0)).
   * @see Intel SDM Vol. 2B (RDFSBASE/RDGSBASE, WRFSBASE/WRGSBASE)
   */
  private segBase(i: Insn): void {
    if (!(this.cr4Value & CR4_FSGSBASE)) throw new CpuFault(ExceptionVector.InvalidOpcode, undefined);
    const gs = i.cc === 1;
    if (i.op === 93 /* Op.RdSegBase */) {
      this.setR(i.dr, i.size, gs ? this.gsLo : this.fsLo, gs ? this.gsHi : this.fsHi);
      return;
    }
    const lo = this.R[i.sr];
    const hi = i.size === 8 ? this.H[i.sr] : 0;
    if (hi >> 15 !== 0 && hi >> 15 !== -1) throw new CpuFault(GP0, 0);
    if (gs) {
      this.gsLo = lo;
      this.gsHi = hi;
    } else {
      this.fsLo = lo;
      this.fsHi = hi;
    }
  }

  /** @see Intel SDM Vol. 2A (IRET/IRETD/IRETQ): pops RIP, CS, RFLAGS, RSP, SS. */
  private iretq(): void {
    const sp = this.R[4];
    const sh = this.H[4];
    const vals: number[] = [];
    for (let k = 0; k < 5; k++) {
      const x = (sp >>> 0) + k * 8;
      vals.push(this.rd64(x | 0, (sh + (x > 0xffffffff ? 1 : 0)) | 0), this.vh);
    }
    const cs = vals[2] & 0xffff;
    if ((cs & 3) < this.cplValue) throw new CpuFault(GP0, cs & 0xfffc);
    const top = vals[1] >> 15;
    if (top !== 0 && top !== -1) throw new CpuFault(GP0, 0);
    this.loadFlags(vals[4], POPF_MASK);
    this.ripLo = vals[0];
    this.ripHi = vals[1];
    this.R[4] = vals[6];
    this.H[4] = vals[7];
    this.ssValue = vals[8] & 0xffff;
    this.setCs(cs);
  }

  /** @see Intel SDM Vol. 2B (SYSCALL) and Linux entry_SYSCALL_64 (the FMASK it relies on). */
  private syscall(i: Insn): void {
    if (!(this.efer & 1n)) throw new CpuFault(ExceptionVector.InvalidOpcode, undefined);
    const flags = this.materialize() & ~0x10000;
    this.setR(1, 8, i.nl, i.nh);
    this.setR(11, 8, flags, 0);
    const sel = Number((this.star >> 32n) & 0xffffn);
    this.flags = (flags & ~Number(this.fmask & 0x3fffffn)) | 2;
    this.ssValue = (sel + 8) & 0xffff;
    this.setCs(sel & 0xfffc);
    this.ripLo = lo32(this.lstar);
    this.ripHi = hi32(this.lstar);
  }

  /** @see Intel SDM Vol. 2B (SYSRET): returns to CPL 3 at RCX with RFLAGS from R11. */
  private sysret(): void {
    this.privileged();
    const top = this.H[1] >> 15;
    if (top !== 0 && top !== -1) throw new CpuFault(GP0, 0);
    const sel = Number((this.star >> 48n) & 0xffffn);
    this.lop = 0;
    this.flags = (this.R[11] & 0x3c7fd7) | 2;
    this.ripLo = this.R[1];
    this.ripHi = this.H[1];
    this.ssValue = (sel + 8) | 3;
    this.setCs((sel + 16) | 3);
  }

  /**
   * A deterministic CPUID: GenuineIntel, long mode, NX, syscall, TSC, CMOV, CX8, CX16, FSGSBASE,
   * BMI1 (tzcnt), LZCNT, POPCNT.
   */
  private cpuid(): void {
    const leaf = this.R[0] >>> 0;
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    if (leaf === 0) {
      a = 7;
      b = 0x756e6547;
      d = 0x49656e69;
      c = 0x6c65746e;
    } else if (leaf === 1) {
      a = 0x000906ea;
      b = (this.cpuId & 0xff) << 24;
      c = (1 << 13) | (1 << 23);
      d = (1 << 4) | (1 << 5) | (1 << 6) | (1 << 8) | (1 << 15);
    } else if (leaf === 7 && this.R[1] === 0) b = (1 << 0) | (1 << 3);
    else if (leaf === 0x80000000) a = 0x80000001;
    else if (leaf === 0x80000001) {
      c = 1 << 5;
      d = (1 << 11) | (1 << 20) | (1 << 29);
    }
    this.setR(0, 4, a, 0);
    this.setR(3, 4, b, 0);
    this.setR(1, 4, c, 0);
    this.setR(2, 4, d, 0);
  }

  /** @see Intel SDM Vol. 2B (MOV to/from control registers) */
  private movCr(i: Insn): void {
    this.privileged();
    const n = i.cc;
    if (n !== 0 && n !== 2 && n !== 3 && n !== 4) throw new CpuFault(ExceptionVector.InvalidOpcode, undefined);
    if (i.op === 84 /* Op.MovFromCr */) {
      const v = n === 0 ? this.cr0Value : n === 2 ? this.cr2Value : n === 3 ? this.cr3Value : this.cr4Value;
      this.setR(i.dr, 8, lo32(v), hi32(v));
      return;
    }
    const v = toBig(this.R[i.sr], this.H[i.sr]);
    if (n === 0) this.cr0Value = this.checkedCr0(v);
    else if (n === 2) this.cr2Value = v;
    else if (n === 3) {
      if (v & CR3_RESERVED) throw new CpuFault(GP0, 0);
      this.cr3Value = v;
    } else {
      // In IA-32e mode PAE stays set.
      if (v & ~CR4_KNOWN || !(v & CR4_PAE)) throw new CpuFault(GP0, 0);
      this.cr4Value = v;
    }
    if (n !== 2) this.flushTlb();
  }

  /**
   * The value MOV to CR0 stores, or #GP(0): bits 63:32 set, PG without PE, NW without CD, or PG
   * cleared in IA-32e mode (this CPU is never outside it). Undefined bits of 31:0 are dropped; ET
   * reads 1.
   * @see Intel SDM Vol. 2B (MOV—Move to/from Control Registers) "Protected Mode Exceptions", Vol. 3A §2.5
   */
  private checkedCr0(v: bigint): bigint {
    if (v >> 32n !== 0n || (v & CR0_PG && !(v & CR0_PE)) || (v & CR0_NW && !(v & CR0_CD))) throw new CpuFault(GP0, 0);
    if (!(v & CR0_PG) && this.efer & EFER_LMA) throw new CpuFault(GP0, 0);
    return (v & CR0_DEFINED) | CR0_ET;
  }

  /**
   * Raises #GP(0) unless CPL <= IOPL: cli/sti (no VME/PVI here: CR4 bits 0 and 1 are never acted on)
   * and in/out (with no TSS I/O permission bitmap to consult, a port is refused at CPL > IOPL).
   * @see Intel SDM Vol. 2A (CLI), Vol. 2B (STI), Vol. 1 §19.5.1 (I/O privilege level)
   */
  private ioPrivileged(): void {
    if (this.cplValue > ((this.flags >> 12) & 3)) throw new CpuFault(ExceptionVector.GeneralProtection, 0);
  }

  /** @see Intel SDM Vol. 2A (IN) and Vol. 2B (OUT) */
  private inOut(i: Insn): void {
    this.ioPrivileged();
    const p = i.cc === 1 ? this.R[2] & 0xffff : i.il;
    if (i.op === 85 /* Op.In */) {
      const v = this.io ? this.io.in(p, i.size) : -1;
      this.setR(0, i.size, v | 0, 0);
    } else this.io?.out(p, i.size, this.getR(0, i.size) >>> 0);
  }
}
