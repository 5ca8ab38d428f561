import type { PtRegs } from '@int3/kernel';
import type { KprobesArchHost } from '../../core/arch.js';
import { InsnSlots, type InsnSlotsState } from '../../core/insn-slots.js';
import { kprobePages } from '../../core/kprobe-pages.js';
import type { KprobesHost } from '../../core/kprobes-host.js';
import type { ProbeSite } from '../../core/probe-site.js';
import { canOptimizeAt } from './can-optimize-at.js';
import type { OptprobesCommon } from './common.js';
import { buildOptDetour, OPTINSN_SLOT_SIZE, TMPL_END_IDX } from './opt-detour.js';
import { OptimizedCallback, optGate } from './optimized-callback.js';
import { relocateRegion } from './relocate-region.js';
import { type PokeStep, relativeJump, textPokeBpSteps, unoptimizeSteps } from './text-poke-bp.js';
import { MAX_INSN_SIZE, MAX_OPTIMIZED_LENGTH, RELATIVE_ADDR_SIZE } from './x86-constants.js';

/** `struct arch_optimized_insn`: a prepared detour buffer. */
export interface OptInsn {
  /**
   * The detour buffer (an `optinsn` slot), where the probe's jump goes: the gate of the optimized
   * callback, the copied DCR and the jump back.
   */
  readonly buf: bigint;
  /** `buf + TMPL_END_IDX`: the copied DCR, where the callback goes on (and an int3 hit is sent). */
  readonly copies: bigint;
  /** `optinsn.size`: bytes of the detoured code region. */
  readonly size: number;
  /** `optinsn.copied_insn`: the original bytes under the jump's displacement. */
  readonly copied: Uint8Array;
  /** `e9 rel32` from the probe address to the buffer. */
  readonly jmp: Uint8Array;
}

/** The x86 optprobes' dynamic state, as plain data (for snapshots). */
export interface X86OptprobesState {
  readonly detours: readonly (readonly [ProbeSite, OptInsn])[];
  readonly tails: readonly (readonly [bigint, number])[];
  readonly freeing: readonly OptInsn[];
  readonly slots: InsnSlotsState;
}

/** The machine's part optprobes use. */
type Host = Pick<
  KprobesHost,
  'cpus' | 'space' | 'memory' | 'kallsyms' | 'sched' | 'guest' | 'hostCalls' | 'clock' | 'symbols' | 'exTable'
>;

/**
 * The x86 mechanism of jump-optimized probes (`arch/x86/kernel/kprobes/opt.c`): detour buffers (slots of `kprobe_optinsn_page`s) where a
 * probe's `jmp rel32` leads, each the gate of the {@link OptimizedCallback}, the relocated DCR and the
 * jump back; the cross-modifying writes of optimizing and unoptimizing, the bytes under a jump for
 * decoders, and sending an int3 hit of a probe being (un)optimized through its detour.
 *
 * Linux's buffer starts with a template that saves the registers as `pt_regs`, calls the callback and
 * restores them; here a guest instruction costs tens of host nanoseconds while the host sees the
 * registers for free, so the template is one gate byte (an inline host gate: the callback runs inside
 * the CPU's run loop) and the CPU goes on with the copied region right after it, on the same page.
 * @see arch/x86/kernel/kprobes/opt.c
 */
export class X86Optprobes implements OptprobesCommon {
  /** `kprobe_optinsn_slots`: detour buffers. */
  readonly slots: InsnSlots;
  private readonly callback: OptimizedCallback;
  private detours = new Map<ProbeSite, OptInsn>();
  /** Sites whose region cannot be optimized, with the reason (a pure function of the text). */
  private readonly refused = new WeakMap<ProbeSite, string>();
  /** Original bytes under the displacement of a jump written (or being written) at a probe. */
  private tails = new Map<bigint, number>();
  /** Buffers of released sites, freed once no CPU runs in them. */
  private freeing: OptInsn[] = [];

  constructor(
    private readonly m: Host & Parameters<typeof kprobePages>[0],
    private readonly k: KprobesArchHost,
  ) {
    this.slots = new InsnSlots(kprobePages(m, 'kprobe_optinsn_page'), OPTINSN_SLOT_SIZE);
    this.callback = new OptimizedCallback(m, k);
  }

  /** The prepared detour of a site, if any. */
  archOptimizedDetour(site: ProbeSite): OptInsn | undefined {
    return this.detours.get(site);
  }

  /**
   * `arch_prepare_optimized_kprobe`: analyses the region (`canOptimizeAt`), relocates it and fills a
   * detour buffer. Returns the reason when the site cannot be optimized; the buffer is kept until the
   * site is released.
   * @see arch/x86/kernel/kprobes/opt.c arch_prepare_optimized_kprobe()
   */
  archPrepareOptimizedKprobe(site: ProbeSite): OptInsn | string {
    const have = this.detours.get(site);
    if (have) return have;
    const known = this.refused.get(site);
    if (known !== undefined) return known;
    const r = this.build(site);
    if (typeof r === 'string') this.refused.set(site, r);
    else this.detours.set(site, r);
    return r;
  }

  /**
   * `arch_check_optimized_kprobe`: another armed probe inside the region forbids the jump.
   * @see arch/x86/kernel/kprobes/opt.c arch_check_optimized_kprobe()
   */
  archCheckOptimizedKprobe(site: ProbeSite, size: number): string | undefined {
    for (let i = 1; i < size; i++) {
      const a = site.addr + BigInt(i);
      if (this.k.get(a)?.armed) return `probe inside the region at ${this.m.kallsyms.format(a)}`;
    }
    return undefined;
  }

  /**
   * Whether patching the site now could tear an instruction: a CPU stopped inside `addr+1 ..
   * addr+size-1`, single-stepping the site's copy (it resumes inside the region), or a task switched
   * out there (the `synchronize_rcu_tasks()` of `kprobe_optimizer()`).
   */
  archOptimizedRegionBusy(site: ProbeSite): boolean {
    const m = this.m;
    const size = this.detours.get(site)!.size;
    const lo = site.addr + 1n;
    const hi = site.addr + BigInt(size);
    const slot = site.arch.slot;
    for (let c = 0; c < m.cpus.length; c++) {
      if (this.k.kcb[c].current === site) return true;
      if (m.sched.current[c] === undefined && !m.guest.active) continue;
      const rip = m.cpus[c].rip;
      if ((rip >= lo && rip < hi) || (rip >= slot && rip < slot + BigInt(MAX_INSN_SIZE))) return true;
    }
    for (const t of m.sched.tasks.values()) {
      const rip = t.context?.rip;
      if (rip !== undefined && rip >= lo && rip < hi) return true;
    }
    return false;
  }

  /** Whether a CPU or task is stopped in a buffer (so it cannot be freed yet). */
  private inUse(d: OptInsn): boolean {
    const m = this.m;
    const end = d.buf + BigInt(OPTINSN_SLOT_SIZE);
    const within = (rip: bigint) => rip >= d.buf && rip < end;
    for (let c = 0; c < m.cpus.length; c++) if (within(m.cpus[c].rip)) return true;
    for (const t of m.sched.tasks.values()) {
      const rip = t.context?.rip;
      if (rip !== undefined && within(rip)) return true;
    }
    return false;
  }

  /**
   * One write of installing the jump (`text_poke_bp`: 1 int3, 2 the displacement, 3 the `e9`).
   * @see arch/x86/kernel/kprobes/opt.c arch_optimize_kprobes()
   */
  archOptimizeKprobe(site: ProbeSite, step: 1 | 2 | 3): void {
    this.poke(site, textPokeBpSteps(site.addr, this.detours.get(site)!.jmp)[step - 1], 'optimize');
  }

  /**
   * One write of taking the jump out (1 int3 over the `e9`, 2 the original bytes back).
   * @see arch/x86/kernel/kprobes/opt.c arch_unoptimize_kprobe()
   */
  archUnoptimizeKprobe(site: ProbeSite, step: 1 | 2): void {
    this.poke(site, unoptimizeSteps(site.addr, this.detours.get(site)!.copied)[step - 1], 'unoptimize');
  }

  /** Performs one write of a sequence through `textPoke`, tracking the bytes under the jump. */
  private poke(site: ProbeSite, step: PokeStep, op: 'optimize' | 'unoptimize'): void {
    const m = this.m;
    const before = m.space.read(step.at, step.bytes.length);
    if (step.step === 2 && op === 'optimize') {
      for (let i = 0; i < step.bytes.length; i++) this.tails.set(step.at + BigInt(i), before[i]);
    }
    if (before.some((b, i) => b !== step.bytes[i])) m.memory.textPoke(step.at, step.bytes);
    if (step.step === 2 && op === 'unoptimize') {
      for (let i = 0; i < step.bytes.length; i++) this.tails.delete(step.at + BigInt(i));
    }
    if (this.k.observed) {
      this.k.emit({
        type: 'kprobe:text-poke-bp',
        at: this.k.now(),
        cpu: -1,
        addr: site.addr,
        symbol: site.symbol,
        op,
        step: step.step,
        where: step.at,
        bytes: Buffer.from(step.bytes).toString('hex'),
      });
    }
  }

  /** Forgets a site's written tail without writing (its text is going away). */
  forgetTail(site: ProbeSite): void {
    for (let i = 1; i <= RELATIVE_ADDR_SIZE; i++) this.tails.delete(site.addr + BigInt(i));
  }

  /**
   * `__recover_optprobed_insn`: the original byte under a jump's displacement, else undefined.
   * @see arch/x86/kernel/kprobes/opt.c __recover_optprobed_insn()
   */
  recoverOptprobedByte(a: bigint): number | undefined {
    return this.tails.size === 0 ? undefined : this.tails.get(a);
  }

  /**
   * `setup_detour_execution`: an int3 hit on a probe flagged optimized (queued, being patched, or
   * being unoptimized) continues in the detour's copy of the region instead of a single-step.
   * @see arch/x86/kernel/kprobes/opt.c setup_detour_execution()
   */
  setupDetourExecution(site: ProbeSite, regs: PtRegs): boolean {
    if (!this.k.kprobeOptimized(site)) return false;
    const d = this.detours.get(site);
    if (!d) return false;
    regs.ip = d.copies;
    return true;
  }

  /**
   * Frees a site's buffer (once no CPU runs in it).
   * @see arch/x86/kernel/kprobes/opt.c arch_remove_optimized_kprobe()
   */
  archRemoveOptimizedKprobe(site: ProbeSite): void {
    const d = this.detours.get(site);
    if (!d) return;
    this.detours.delete(site);
    this.forgetTail(site);
    this.freeing.push(d);
    this.archFreeCleanedKprobes();
  }

  /** Frees the released buffers no CPU runs in (`do_free_cleaned_kprobes`); returns how many wait. */
  archFreeCleanedKprobes(): number {
    if (this.freeing.length === 0) return 0;
    this.freeing = this.freeing.filter((d) => {
      if (this.inUse(d)) return true;
      this.m.hostCalls.unbind(d.buf);
      this.m.space.markGate(d.buf, false);
      this.slots.freeInsnSlot(d.buf);
      return false;
    });
    return this.freeing.length;
  }

  /** Buffers waiting to be freed. */
  get pendingFrees(): number {
    return this.freeing.length;
  }

  save(): X86OptprobesState {
    return Object.freeze({
      detours: Object.freeze([...this.detours]),
      tails: Object.freeze([...this.tails]),
      freeing: Object.freeze([...this.freeing]),
      slots: this.slots.save(),
    });
  }

  restore(s: X86OptprobesState): void {
    this.detours = new Map(s.detours);
    this.tails = new Map(s.tails);
    this.freeing = [...s.freeing];
    this.slots.restore(s.slots);
  }

  private build(site: ProbeSite): OptInsn | string {
    const m = this.m;
    const recover = (a: bigint) =>
      this.recoverOptprobedByte(a) ?? (this.k.get(a)?.armed ? this.k.get(a)!.arch.opcode : undefined);
    const r = canOptimizeAt(m, site.addr, recover);
    if (!r.ok) return r.message;
    if (r.regionLength > MAX_OPTIMIZED_LENGTH) return 'the region is longer than MAX_OPTIMIZED_LENGTH';
    const original = new Uint8Array(r.regionLength);
    for (let i = 0; i < r.regionLength; i++) {
      const a = site.addr + BigInt(i);
      original[i] = recover(a) ?? m.space.readU8(a);
    }
    const buf = this.slots.getInsnSlot();
    const copies = buf + BigInt(TMPL_END_IDX);
    const moved = relocateRegion(original, site.addr, copies);
    const detour = moved.ok ? buildOptDetour(buf, site.addr, moved.bytes) : undefined;
    const jmp = relativeJump(site.addr, buf);
    if (!moved.ok || !detour || !jmp) {
      this.slots.freeInsnSlot(buf);
      return moved.ok ? 'the detour buffer is out of rel32 reach (-ERANGE)' : moved.message;
    }
    m.memory.textPoke(buf, detour.bytes);
    // The gate and the jump back cost no virtual time (nor does the jump at the probe: it starts on the
    // int3's instrumentation byte); each copied instruction costs what the original did, so an
    // optimized run keeps an unprobed run's clocks.
    m.space.markInstrumentation(buf, OPTINSN_SLOT_SIZE, false);
    m.space.markInstrumentation(buf + BigInt(detour.jmpBack), 5, true);
    m.space.markGate(buf, true);
    const callback = this.callback;
    const g = optGate(site, copies);
    // Inline: the callback runs inside the CPU's run loop, so an optimized hit never leaves it.
    m.hostCalls.bind('optimized_callback', buf, (ctx) => callback.handle(ctx, g), { inline: true });
    return Object.freeze({
      buf,
      copies,
      size: r.regionLength,
      copied: original.slice(1, 1 + RELATIVE_ADDR_SIZE),
      jmp,
    });
  }
}
