import type { PtRegs } from '@int3/kernel';
import type { KprobesArch, KprobesArchHost, KprobesTextLayout, OptimizedDetour } from '../../core/arch.js';
import type { BlacklistEntry } from '../../core/blacklist-entry.js';
import type { InsnSlotsState } from '../../core/insn-slots.js';
import type { KprobesHost } from '../../core/kprobes-host.js';
import type { ProbeSite } from '../../core/probe-site.js';
import { recoverProbedByte } from './common.js';
import { X86Kprobes } from './core.js';
import type { GarbageSlots } from './garbage-slots.js';
import type { BoostSnapshot } from './kprobe-booster.js';
import { X86Optprobes, type X86OptprobesState } from './opt.js';

/** The x86 arch's dynamic state at a snapshot. */
interface X86ArchState {
  readonly boost: BoostSnapshot;
  readonly opt: X86OptprobesState;
  /** The instruction slots in use and those waiting to be freed (a registration owns one). */
  readonly slots: InsnSlotsState;
  readonly garbage: ReturnType<GarbageSlots['save']>;
}

/**
 * The x86-64 arch of kprobes as the core sees it ({@link KprobesArch}): `core.ts` (int3, single-step,
 * boosting) and `opt.ts` (detour buffers, `text_poke_bp`), which reach each other through
 * `common.ts` as Linux's do through `common.h`.
 * @see arch/x86/kernel/kprobes/
 */
export class X86KprobesArch implements KprobesArch {
  private readonly kprobes: X86Kprobes;
  private readonly opt: X86Optprobes;

  constructor(
    host: KprobesHost,
    private readonly core: KprobesArchHost,
  ) {
    this.opt = new X86Optprobes(host, core);
    this.kprobes = new X86Kprobes(host, core, this.opt);
  }

  get text(): KprobesTextLayout {
    return this.kprobes.text;
  }

  get boosting(): boolean {
    return this.kprobes.boosting;
  }

  set boosting(on: boolean) {
    this.kprobes.boosting = on;
  }

  canProbe(addr: bigint): void {
    this.kprobes.canProbe(addr);
  }

  archPrepareKprobe(addr: bigint): ProbeSite['arch'] {
    return this.kprobes.prepare(addr);
  }

  archArmKprobe(site: ProbeSite): void {
    this.kprobes.arm(site);
  }

  archDisarmKprobe(site: ProbeSite): void {
    this.kprobes.disarm(site);
  }

  archRemoveKprobe(site: ProbeSite): void {
    this.kprobes.release(site);
  }

  archPopulateKprobeBlacklist(): readonly BlacklistEntry[] {
    return this.kprobes.blacklist();
  }

  kprobeInt3Handler(cpu: number, regs: PtRegs): boolean {
    return this.kprobes.kprobeInt3Handler(cpu, regs);
  }

  kprobeDebugHandler(cpu: number, regs: PtRegs): boolean {
    return this.kprobes.kprobeDebugHandler(cpu, regs);
  }

  kprobeFaultHandler(cpu: number, regs: PtRegs, trapnr: number): boolean {
    return this.kprobes.kprobeFaultHandler(cpu, regs, trapnr);
  }

  recoverProbedInstruction(addr: bigint, bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const original = recoverProbedByte(this.core, this.opt, addr + BigInt(i));
      if (original !== undefined) bytes[i] = original;
    }
  }

  archPrepareOptimizedKprobe(site: ProbeSite): OptimizedDetour | string {
    return this.opt.archPrepareOptimizedKprobe(site);
  }

  archCheckOptimizedKprobe(site: ProbeSite, size: number): string | undefined {
    return this.opt.archCheckOptimizedKprobe(site, size);
  }

  archOptimizedDetour(site: ProbeSite): OptimizedDetour | undefined {
    return this.opt.archOptimizedDetour(site);
  }

  archOptimizedRegionBusy(site: ProbeSite): boolean {
    return this.opt.archOptimizedRegionBusy(site);
  }

  archOptimizeKprobe(site: ProbeSite, step: 1 | 2 | 3): void {
    this.opt.archOptimizeKprobe(site, step);
  }

  archUnoptimizeKprobe(site: ProbeSite, step: 1 | 2): void {
    this.opt.archUnoptimizeKprobe(site, step);
  }

  archRemoveOptimizedKprobe(site: ProbeSite): void {
    this.opt.archRemoveOptimizedKprobe(site);
  }

  archFreeCleanedKprobes(): number {
    return this.opt.archFreeCleanedKprobes();
  }

  get pendingFrees(): number {
    return this.opt.pendingFrees;
  }

  save(): X86ArchState {
    return Object.freeze({
      boost: this.kprobes.booster.save(),
      opt: this.opt.save(),
      slots: this.kprobes.slots.save(),
      garbage: this.kprobes.booster.garbage.save(),
    });
  }

  restore(state: unknown): void {
    const s = state as X86ArchState;
    this.kprobes.booster.restore(s.boost);
    this.opt.restore(s.opt);
    this.kprobes.slots.restore(s.slots);
    this.kprobes.booster.garbage.restore(s.garbage);
  }

  /** The x86 parts, for this package's tests: instruction slots, the booster, detour slots. */
  get parts(): { readonly kprobes: X86Kprobes; readonly opt: X86Optprobes } {
    return { kprobes: this.kprobes, opt: this.opt };
  }
}
