import type { AddressSpace } from './address-space.js';
import { hi32, lo32, toBig } from './cpu-core.js';
import { CpuSystem } from './cpu-system.js';
import type { RegIndex } from './reg.js';

const FLAGS_MASK = 0x3f7fd7;

/**
 * The host-side view of the register file: bigint/number accessors over the int32 halves the
 * interpreter uses, MSR access that throws instead of raising #GP, and the instrumentation mode.
 * @see Intel SDM Vol. 1 §3.4 (registers) and Vol. 3A §2.5 (control registers)
 */
export class CpuRegisters extends CpuSystem {
  /** ANDed into each instruction's cost: 0 in instrumentation mode. */
  protected costMask = 1;

  get addressSpace(): AddressSpace {
    return this.addressSpaceRef;
  }
  /** Switching address space is a CR3 write: this CPU's TLB is flushed. */
  set addressSpace(as: AddressSpace) {
    this.addressSpaceRef = as;
    this.flushTlb();
  }
  get rip(): bigint {
    return toBig(this.ripLo, this.ripHi);
  }
  set rip(v: bigint) {
    this.ripLo = lo32(v);
    this.ripHi = hi32(v);
  }
  get rflags(): number {
    return this.materialize() | 2;
  }
  set rflags(v: number) {
    this.lop = 0;
    this.flags = (v & FLAGS_MASK) | 2;
  }
  get cpl(): 0 | 3 {
    return this.cplValue;
  }
  set cpl(v: 0 | 3) {
    this.setCs((this.csValue & ~3) | v);
  }
  get cs(): number {
    return this.csValue;
  }
  set cs(v: number) {
    this.setCs(v);
  }
  get ss(): number {
    return this.ssValue;
  }
  set ss(v: number) {
    this.ssValue = v & 0xffff;
  }
  get fsBase(): bigint {
    return toBig(this.fsLo, this.fsHi);
  }
  set fsBase(v: bigint) {
    this.fsLo = lo32(v);
    this.fsHi = hi32(v);
  }
  get gsBase(): bigint {
    return toBig(this.gsLo, this.gsHi);
  }
  set gsBase(v: bigint) {
    this.gsLo = lo32(v);
    this.gsHi = hi32(v);
  }
  get kernelGsBase(): bigint {
    return this.kernelGsBaseValue;
  }
  set kernelGsBase(v: bigint) {
    this.kernelGsBaseValue = BigInt.asUintN(64, v);
  }
  get cr0(): bigint {
    return this.cr0Value;
  }
  set cr0(v: bigint) {
    this.cr0Value = BigInt.asUintN(64, v);
    this.flushTlb();
  }
  get cr2(): bigint {
    return this.cr2Value;
  }
  set cr2(v: bigint) {
    this.cr2Value = BigInt.asUintN(64, v);
  }
  get cr3(): bigint {
    return this.cr3Value;
  }
  set cr3(v: bigint) {
    this.cr3Value = BigInt.asUintN(64, v);
    this.flushTlb();
  }
  get cr4(): bigint {
    return this.cr4Value;
  }
  set cr4(v: bigint) {
    this.cr4Value = BigInt.asUintN(64, v);
    this.flushTlb();
  }
  /**
   * While true, every instruction executed costs no virtual time, as if it were marked with
   * markInstrumentation (kprobes sets it while a jprobe handler runs).
   */
  get instrumentationMode(): boolean {
    return this.costMask === 0;
  }
  set instrumentationMode(on: boolean) {
    this.costMask = on ? 0 : 1;
  }
  /** Every instruction retired. */
  get retired(): number {
    return this.retiredCount;
  }
  /** Instructions retired minus instrumentation; rdtsc derives from it. */
  get virtualRetired(): number {
    return this.virtualCount;
  }

  /** Reads a GPR as an unsigned 64-bit bigint (host side). */
  getReg(r: RegIndex): bigint {
    return toBig(this.R[r], this.H[r]);
  }
  /** Writes a GPR (host side); the value is taken modulo 2^64. */
  setReg(r: RegIndex, v: bigint): void {
    this.setRegHalves(r, lo32(v), hi32(v));
  }
  /** Reads the low 32 bits of a GPR, unsigned. */
  getReg32(r: RegIndex): number {
    return this.R[r] >>> 0;
  }

  // The register file in int32 halves, for host code on hot paths (gates, probe handlers): no bigint,
  // nothing allocated, and no reach into how the CPU keeps its registers.

  /** The low 32 bits of a GPR, as an int32. */
  regLo(r: RegIndex): number {
    return this.R[r];
  }
  /** The high 32 bits of a GPR, as an int32. */
  regHi(r: RegIndex): number {
    return this.H[r];
  }
  /** Writes a GPR from its int32 halves (a write of the value it holds changes nothing, not even regWrites). */
  setRegHalves(r: RegIndex, lo: number, hi: number): void {
    if (this.R[r] === lo && this.H[r] === hi) return;
    this.R[r] = lo;
    this.H[r] = hi;
    this.regWrites++;
  }
  /** The low 32 bits of RIP, as an int32. */
  get ripLow(): number {
    return this.ripLo;
  }
  /** The high 32 bits of RIP, as an int32. */
  get ripHigh(): number {
    return this.ripHi;
  }
  /** Moves RIP to `hi:lo` (int32 halves). */
  setRipHalves(lo: number, hi: number): void {
    this.ripLo = lo;
    this.ripHi = hi;
  }

  /** @see Intel SDM Vol. 2B (RDMSR); throws a TypeError for an MSR the CPU does not implement. */
  readMsr(index: number): bigint {
    try {
      return this.readMsrValue(index);
    } catch {
      throw new TypeError(`unknown MSR 0x${index.toString(16)}`);
    }
  }
  /** @see Intel SDM Vol. 2B (WRMSR) */
  writeMsr(index: number, v: bigint): void {
    try {
      this.writeMsrValue(index, v);
    } catch {
      throw new TypeError(`unknown MSR 0x${index.toString(16)}`);
    }
  }
}
