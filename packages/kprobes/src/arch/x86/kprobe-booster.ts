import type { PtRegs } from '@int3/kernel';
import type { KprobesArchHost } from '../../core/arch.js';
import type { InsnSlots } from '../../core/insn-slots.js';
import type { KprobesHost } from '../../core/kprobes-host.js';
import type { ProbeSite } from '../../core/probe-site.js';
import type { Boostable } from './apply-resume-fixups.js';
import { decideBoost } from './decide-boost.js';
import { GarbageSlots } from './garbage-slots.js';
import { RELATIVEJUMP_SIZE } from './x86-constants.js';
import type { X86Site } from './x86-site.js';

/** Boost states of every site at a snapshot, by probe address. */
export type BoostSnapshot = readonly (readonly [bigint, Boostable])[];

/**
 * Boosting ("kprobe-booster"): after a probe's first single-step shows its copy falls through, a
 * `jmp rel32` back to the original stream is written after the copy in the slot, so later hits run
 * the copy directly — no TF, no #DB, no `resume_execution` — unless the probe has a post-handler.
 * Slots of boosted probes are freed only once no CPU is inside them ({@link GarbageSlots}).
 * @see arch/x86/kernel/kprobes/core.c kprobe_handler() (2.6.x ss_probe boost path), resume_execution()
 */
export class KprobeBooster {
  readonly garbage: GarbageSlots;

  constructor(
    private readonly m: Pick<KprobesHost, 'cpus' | 'memory' | 'space'>,
    private readonly k: Pick<KprobesArchHost, 'emit' | 'observed' | 'kcb' | 'sites' | 'get'>,
    slots: InsnSlots,
    /** `!CONFIG_PREEMPT`: whether new boosts are made and boosted copies run. */
    private readonly isOn: () => boolean,
  ) {
    this.garbage = new GarbageSlots(slots, () => m.cpus.map((c) => c.rip));
  }

  /** True when a hit on `site` may run its boosted copy (`boostable == 1 && !post_handler`). */
  canRunBoosted(site: ProbeSite): boolean {
    return this.isOn() && (site.arch as X86Site).boost.boostable === 1 && !site.hasPostHandler;
  }

  /**
   * The boost path of `kprobe_handler`: after the pre-handlers, `ip = slot` with TF untouched, when
   * the site is boosted and has no post-handler. Returns false when the hit must single-step.
   */
  runBoosted(site: ProbeSite, regs: PtRegs): boolean {
    if (!this.canRunBoosted(site)) return false;
    const x = site.arch as X86Site;
    regs.cpu.setRipHalves(x.slotLo, x.slotHi);
    return true;
  }

  /**
   * The boost half of `resume_execution`, called with the registers right after the single-step: decides,
   * and writes the jump back into the slot (its 5 bytes are instrumentation: they cost no time).
   */
  afterSingleStep(cpu: number, site: ProbeSite, regs: PtRegs): void {
    const x = site.arch as X86Site;
    // Nothing can change while boosting is off or a post-handler needs the #DB (decideBoost says
    // "stay"): skip building the decision, and reading ip as a bigint, on every such hit.
    if (x.boost.boostable !== 0 || !this.isOn() || site.hasPostHandler) return;
    const ip = regs.ip;
    const d = decideBoost({
      boostable: 0,
      boosting: this.isOn(),
      hasPostHandler: site.hasPostHandler,
      plan: x.plan,
      ip,
      slot: x.slot,
      orig: site.addr,
    });
    x.boost.boostable = d.boostable;
    if (!d.jump) return;
    const m = this.m;
    m.memory.textPoke(d.jump.at, d.jump.bytes);
    m.space.markInstrumentation(d.jump.at, RELATIVEJUMP_SIZE, true);
    if (this.k.observed) {
      const jmpBack =
        d.jump.at + BigInt(RELATIVEJUMP_SIZE) + BigInt(new DataView(d.jump.bytes.buffer).getInt32(1, true));
      this.k.emit({
        type: 'kprobe:boosted',
        at: this.k.kcb[cpu].at,
        cpu,
        addr: site.addr,
        symbol: site.symbol,
        slot: x.slot,
        jmpBack,
      });
    }
  }

  /** `arch_remove_kprobe`: the slot goes back, dirty if a CPU is still inside it. */
  release(site: ProbeSite): void {
    const x = site.arch as X86Site;
    const space = this.m.space;
    const jumpAt = x.slot + BigInt(x.length);
    const boosted = x.boost.boostable === 1 && x.plan.type !== 'absolute-ip';
    this.garbage.freeInsnSlot(
      x.slot,
      boosted ? () => space.markInstrumentation(jumpAt, RELATIVEJUMP_SIZE, false) : undefined,
    );
  }

  /** The boost state of every site (kprobes' snapshot). */
  save(): BoostSnapshot {
    return Object.freeze(
      [...this.k.sites()].map((s) => Object.freeze([s.addr, (s.arch as X86Site).boost.boostable] as const)),
    );
  }

  /** Restores {@link save}'s states on the sites that still exist. */
  restore(saved: BoostSnapshot | undefined): void {
    for (const [addr, boostable] of saved ?? []) {
      const site = this.k.get(addr);
      if (site) (site.arch as X86Site).boost.boostable = boostable;
    }
  }
}
