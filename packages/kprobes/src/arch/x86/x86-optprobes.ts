import { PageFlags } from '@int3/cpu';
import type { PtRegs } from '@int3/kernel';
import { InsnSlots, type InsnSlotsState } from '../../core/insn-slots.js';
import { kprobePages } from '../../core/kprobe-pages.js';
import type { Kprobes } from '../../core/kprobes.js';
import type { ProbeSite } from '../../core/probe-site.js';
import { canOptimizeAt } from './can-optimize-at.js';
import { buildOptDetour, OPTINSN_SLOT_SIZE } from './opt-detour.js';
import { OptimizedCallback, optGate } from './optimized-callback.js';
import { relocateRegion } from './relocate-region.js';
import { type PokeStep, relativeJump, textPokeBpSteps, unoptimizeSteps } from './text-poke-bp.js';
import { MAX_INSN_SIZE, MAX_OPTIMIZED_LENGTH, RELATIVE_ADDR_SIZE } from './x86-constants.js';

/** `struct arch_optimized_insn`: a prepared detour buffer. */
export interface OptInsn {
  /** The detour buffer (an `optinsn` slot): the copied DCR and the jump back. */
  readonly buf: bigint;
  /** The site's gate (an `optprobe_gate` slot), where the probe's jump goes. */
  readonly gate: bigint;
  /** `optinsn.size`: bytes of the detoured code region. */
  readonly size: number;
  /** `optinsn.copied_insn`: the original bytes under the jump's displacement. */
  readonly copied: Uint8Array;
  /** `e9 rel32` from the probe address to the gate. */
  readonly jmp: Uint8Array;
}

/** The x86 optprobes' dynamic state, as plain data (for snapshots). */
export interface X86OptprobesState {
  readonly detours: readonly (readonly [ProbeSite, OptInsn])[];
  readonly tails: readonly (readonly [bigint, number])[];
  readonly freeing: readonly OptInsn[];
  readonly slots: InsnSlotsState;
  readonly gateSlots: InsnSlotsState;
}

/** Bytes per optimized-probe gate (as the kernel's own host gates). */
export const OPTPROBE_GATE_SIZE = 16;

/**
 * The x86 mechanism of jump-optimized probes: per-site gates (16-byte slots of `optprobe_gate` pages,
 * host-call gate pages bound to the {@link OptimizedCallback}) where a probe's `jmp rel32` leads;
 * detour buffers (the relocated DCR and the jump back, on `kprobe_optinsn_page`s) where the gate goes
 * on; the cross-modifying writes of optimizing and unoptimizing, the bytes under a jump for decoders,
 * and sending an int3 hit of a probe being (un)optimized through its detour.
 *
 * Linux jumps to a buffer whose template saves the registers as `pt_regs` and calls the callback; here
 * a guest instruction costs tens of host nanoseconds while the host sees the registers for free, so
 * the jump goes straight to the host and the template is left out.
 * @see arch/x86/kernel/kprobes/opt.c
 */
export class X86Optprobes {
  /** `kprobe_optinsn_slots`: detour buffers. */
  readonly slots: InsnSlots;
  /** Per-site gates of the optimized callback. */
  readonly gateSlots: InsnSlots;
  private readonly callback: OptimizedCallback;
  private detours = new Map<ProbeSite, OptInsn>();
  /** Sites whose region cannot be optimized, with the reason (a pure function of the text). */
  private readonly refused = new WeakMap<ProbeSite, string>();
  /** Original bytes under the displacement of a jump written (or being written) at a probe. */
  private tails = new Map<bigint, number>();
  /** Buffers and gates of released sites, freed once no CPU runs in them. */
  private freeing: OptInsn[] = [];

  constructor(private readonly k: Kprobes) {
    const m = k.m;
    this.slots = new InsnSlots(kprobePages(m, 'kprobe_optinsn_page'), OPTINSN_SLOT_SIZE);
    this.gateSlots = new InsnSlots(
      kprobePages(m, 'optprobe_gate', PageFlags.Present | PageFlags.Gate),
      OPTPROBE_GATE_SIZE,
    );
    this.callback = new OptimizedCallback(k);
  }

  /** The prepared detour of a site, if any. */
  detour(site: ProbeSite): OptInsn | undefined {
    return this.detours.get(site);
  }

  /**
   * `arch_prepare_optimized_kprobe`: analyses the region (`canOptimizeAt`), relocates it and fills a
   * detour buffer. Returns the reason when the site cannot be optimized; the buffer is kept until the
   * site is released.
   * @see arch/x86/kernel/kprobes/opt.c arch_prepare_optimized_kprobe()
   */
  prepare(site: ProbeSite): OptInsn | string {
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
  probeInside(site: ProbeSite, size: number): string | undefined {
    for (let i = 1; i < size; i++) {
      const a = site.addr + BigInt(i);
      if (this.k.get(a)?.armed) return `probe inside the region at ${this.k.m.kallsyms.format(a)}`;
    }
    return undefined;
  }

  /**
   * Whether patching the site now could tear an instruction: a CPU stopped inside `addr+1 ..
   * addr+size-1`, single-stepping the site's copy (it resumes inside the region), or a task switched
   * out there (the `synchronize_rcu_tasks()` of `kprobe_optimizer()`).
   */
  busy(site: ProbeSite, size: number): boolean {
    const m = this.k.m;
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

  /** Whether a CPU or task is stopped in a buffer or on its gate (so neither can be freed yet). */
  private inUse(d: OptInsn): boolean {
    const m = this.k.m;
    const end = d.buf + BigInt(OPTINSN_SLOT_SIZE);
    const within = (rip: bigint) => (rip >= d.buf && rip < end) || rip === d.gate;
    for (let c = 0; c < m.cpus.length; c++) if (within(m.cpus[c].rip)) return true;
    for (const t of m.sched.tasks.values()) {
      const rip = t.context?.rip;
      if (rip !== undefined && within(rip)) return true;
    }
    return false;
  }

  /** The writes that install the jump (`arch_optimize_kprobes` through `text_poke_bp`). */
  optimizeSteps(site: ProbeSite): readonly [PokeStep, PokeStep, PokeStep] {
    return textPokeBpSteps(site.addr, this.detours.get(site)!.jmp);
  }

  /** The writes that take the jump out (`arch_unoptimize_kprobe`). */
  unoptimizeSteps(site: ProbeSite): readonly [PokeStep, PokeStep] {
    return unoptimizeSteps(site.addr, this.detours.get(site)!.copied);
  }

  /** Performs one write of a sequence through `textPoke`, tracking the bytes under the jump. */
  poke(site: ProbeSite, step: PokeStep, op: 'optimize' | 'unoptimize'): void {
    const m = this.k.m;
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
  recoverByte(a: bigint): number | undefined {
    return this.tails.size === 0 ? undefined : this.tails.get(a);
  }

  /**
   * `setup_detour_execution`: an int3 hit on a probe flagged optimized (queued, being patched, or
   * being unoptimized) continues in the detour's copy of the region instead of a single-step.
   * @see arch/x86/kernel/kprobes/opt.c setup_detour_execution()
   */
  setupDetourExecution(site: ProbeSite, regs: PtRegs): boolean {
    const d = this.detours.get(site);
    if (!d) return false;
    regs.ip = d.buf;
    return true;
  }

  /** Frees a site's buffer (once no CPU runs in it). */
  release(site: ProbeSite): void {
    const d = this.detours.get(site);
    if (!d) return;
    this.detours.delete(site);
    this.forgetTail(site);
    this.freeing.push(d);
    this.freeUnused();
  }

  /** Frees the released buffers no CPU runs in (`do_free_cleaned_kprobes`). */
  freeUnused(): void {
    if (this.freeing.length === 0) return;
    this.freeing = this.freeing.filter((d) => {
      if (this.inUse(d)) return true;
      this.slots.freeInsnSlot(d.buf);
      this.k.m.hostCalls.unbind(d.gate);
      this.gateSlots.freeInsnSlot(d.gate);
      return false;
    });
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
      gateSlots: this.gateSlots.save(),
    });
  }

  restore(s: X86OptprobesState): void {
    this.detours = new Map(s.detours);
    this.tails = new Map(s.tails);
    this.freeing = [...s.freeing];
    this.slots.restore(s.slots);
    this.gateSlots.restore(s.gateSlots);
  }

  private build(site: ProbeSite): OptInsn | string {
    const m = this.k.m;
    const recover = (a: bigint) =>
      this.recoverByte(a) ?? (this.k.get(a)?.armed ? this.k.get(a)!.arch.opcode : undefined);
    const r = canOptimizeAt(m, site.addr, recover);
    if (!r.ok) return r.message;
    if (r.regionLength > MAX_OPTIMIZED_LENGTH) return 'the region is longer than MAX_OPTIMIZED_LENGTH';
    const original = new Uint8Array(r.regionLength);
    for (let i = 0; i < r.regionLength; i++) {
      const a = site.addr + BigInt(i);
      original[i] = recover(a) ?? m.space.readU8(a);
    }
    const buf = this.slots.getInsnSlot();
    const moved = relocateRegion(original, site.addr, buf);
    const detour = moved.ok ? buildOptDetour(buf, site.addr, moved.bytes) : undefined;
    const gate = this.gateSlots.getInsnSlot();
    const jmp = relativeJump(site.addr, gate);
    if (!moved.ok || !detour || !jmp) {
      this.slots.freeInsnSlot(buf);
      this.gateSlots.freeInsnSlot(gate);
      return moved.ok ? 'the detour buffer or gate is out of rel32 reach (-ERANGE)' : moved.message;
    }
    m.memory.textPoke(buf, detour.bytes);
    // The gate and the jump back cost no virtual time (nor does the jump at the probe: it starts on the
    // int3's instrumentation byte); each copied instruction costs what the original did, so an
    // optimized run keeps an unprobed run's clocks.
    m.space.markInstrumentation(buf, OPTINSN_SLOT_SIZE, false);
    m.space.markInstrumentation(buf + BigInt(detour.jmpBack), 5, true);
    const callback = this.callback;
    const g = optGate(site, buf);
    // Inline: the callback runs inside the CPU's run loop, so an optimized hit never leaves it.
    m.hostCalls.bind('optprobe_gate', gate, (ctx) => callback.handle(ctx, g), { inline: true });
    return Object.freeze({
      buf,
      gate,
      size: r.regionLength,
      copied: original.slice(1, 1 + RELATIVE_ADDR_SIZE),
      jmp,
    });
  }
}
