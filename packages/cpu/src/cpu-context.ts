import { toBig } from './cpu-core.js';
import type { CpuTraps } from './cpu-traps.js';
import type { RegIndex } from './reg.js';

/**
 * The full register file of one CPU as plain, deep-copied data (for snapshots and replays).
 * @see Intel SDM Vol. 3A §2 (system architecture: registers and MSRs)
 */
export interface CpuContext {
  readonly gpr: readonly bigint[];
  readonly rip: bigint;
  readonly rflags: number;
  readonly cs: number;
  readonly ss: number;
  readonly fsBase: bigint;
  readonly gsBase: bigint;
  readonly kernelGsBase: bigint;
  readonly cr0: bigint;
  readonly cr2: bigint;
  readonly cr3: bigint;
  readonly cr4: bigint;
  readonly efer: bigint;
  readonly star: bigint;
  readonly lstar: bigint;
  readonly fmask: bigint;
  readonly tsc: bigint;
  readonly pendingInterrupt: number;
  /** True right after an `sti` that set IF: the next boundary takes no interrupt (Intel SDM Vol. 2B, STI). */
  readonly interruptShadow: boolean;
  readonly retired: number;
  readonly virtualRetired: number;
}

/** The full register file of `cpu` as plain data. */
export function captureContext(cpu: CpuTraps): CpuContext {
  const gpr: bigint[] = [];
  for (let r = 0; r < 16; r++) gpr.push(toBig(cpu.R[r], cpu.H[r]));
  return {
    gpr,
    rip: cpu.rip,
    rflags: cpu.rflags,
    cs: cpu.csValue,
    ss: cpu.ssValue,
    fsBase: cpu.fsBase,
    gsBase: cpu.gsBase,
    kernelGsBase: cpu.kernelGsBaseValue,
    cr0: cpu.cr0Value,
    cr2: cpu.cr2Value,
    cr3: cpu.cr3Value,
    cr4: cpu.cr4Value,
    efer: cpu.efer,
    star: cpu.star,
    lstar: cpu.lstar,
    fmask: cpu.fmask,
    tsc: BigInt(cpu.tscOffset),
    pendingInterrupt: cpu.pendingVector,
    interruptShadow: cpu.shadowAt === cpu.retiredCount,
    retired: cpu.retiredCount,
    virtualRetired: cpu.virtualCount,
  };
}

/** Loads a context produced by captureContext into `cpu`. */
export function applyContext(cpu: CpuTraps, c: CpuContext): void {
  for (let r = 0; r < 16; r++) cpu.setReg(r as RegIndex, c.gpr[r]);
  cpu.rip = c.rip;
  cpu.rflags = c.rflags;
  cpu.setCs(c.cs);
  cpu.ssValue = c.ss;
  cpu.fsBase = c.fsBase;
  cpu.gsBase = c.gsBase;
  cpu.kernelGsBaseValue = c.kernelGsBase;
  cpu.cr0Value = c.cr0;
  cpu.cr2Value = c.cr2;
  cpu.cr3Value = c.cr3;
  cpu.cr4Value = c.cr4;
  cpu.efer = c.efer;
  cpu.star = c.star;
  cpu.lstar = c.lstar;
  cpu.fmask = c.fmask;
  cpu.tscOffset = Number(c.tsc);
  cpu.pendingVector = c.pendingInterrupt;
  cpu.retiredCount = c.retired;
  cpu.virtualCount = c.virtualRetired;
  cpu.shadowAt = c.interruptShadow ? c.retired : -1;
  cpu.flushTlb();
}
