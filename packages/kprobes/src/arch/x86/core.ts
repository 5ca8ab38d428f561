import { hi32, lo32, Rflags } from '@int3/cpu';
import type { PtRegs } from '@int3/kernel';
import type { KprobesArchHost } from '../../core/arch.js';
import type { BlacklistEntry } from '../../core/blacklist-entry.js';
import type { ControlBlock } from '../../core/control-block.js';
import { InsnSlots } from '../../core/insn-slots.js';
import { KprobeStatus } from '../../core/kprobe.js';
import { kprobePages } from '../../core/kprobe-pages.js';
import type { KprobesHost } from '../../core/kprobes-host.js';
import type { ProbeSite } from '../../core/probe-site.js';
import { KprobeError } from '../../kprobe-error.js';
import { canProbe } from './can-probe.js';
import { type OptprobesCommon, recoverProbedByte } from './common.js';
import { copyInstruction } from './copy-instruction.js';
import { initialBoostable } from './decide-boost.js';
import { isIfModifier } from './is-if-modifier.js';
import { KprobeBooster } from './kprobe-booster.js';
import { KprobesText } from './kprobes-text.js';
import { resumeExecution } from './resume-execution.js';
import { resumeExecutionPlan } from './resume-execution-plan.js';
import { BREAKPOINT_INSTRUCTION, MAX_INSN_SIZE } from './x86-constants.js';
import { BoostState, type X86Site } from './x86-site.js';

const TF = Rflags.TF;
const IF = Rflags.IF;

/** The machine's part the x86 kprobes core uses. */
type Host = Pick<KprobesHost, 'cpus' | 'space' | 'memory' | 'kallsyms' | 'clock' | 'sched' | 'exTable' | 'percpuAlloc'>;

/**
 * The x86-64 mechanism of kprobes (`arch/x86/kernel/kprobes/core.c`), as the 2.6.12 x86_64 port does it: the instruction is copied into a
 * slot, `int3` replaces its first byte; on the hit the pre-handler runs and the copy is single-stepped
 * with TF set and IF clear; on the #DB the post-handler runs, then `resume_execution` fixes what running
 * at the slot's address changed, and the flags are restored.
 *
 * An int3 hit of a probe flagged optimized goes through its detour instead (`opt.ts`, through
 * {@link OptprobesCommon}).
 * @see arch/x86_64/kernel/kprobes.c (2.6.12): kprobe_handler(), post_kprobe_handler(),
 *   resume_execution(), kprobe_fault_handler(); arch/x86/kernel/kprobes/core.c
 */
export class X86Kprobes {
  readonly slots: InsnSlots;
  readonly text: KprobesText;
  /** `!CONFIG_PREEMPT`: boost copies that fall through (false models CONFIG_PREEMPT=y). */
  boosting = true;
  readonly booster: KprobeBooster;

  constructor(
    private readonly m: Host & Parameters<typeof kprobePages>[0],
    private readonly k: KprobesArchHost,
    private readonly opt: OptprobesCommon,
  ) {
    this.slots = new InsnSlots(kprobePages(m, 'kprobe_insn_page'));
    this.text = new KprobesText(m);
    this.booster = new KprobeBooster(m, k, this.slots, () => this.boosting);
  }

  /** kprobes' own text, which may not be probed (`arch_populate_kprobe_blacklist`). */
  blacklist(): BlacklistEntry[] {
    return this.text.ranges();
  }

  /**
   * `can_probe` + refusing exception instructions: decode from the function start to `addr`.
   * @see arch/x86/kernel/kprobes/core.c can_probe()
   */
  canProbe(addr: bigint): void {
    const m = this.m;
    const loc = m.kallsyms.lookup(addr);
    const where = m.kallsyms.format(addr);
    if (!loc) throw new KprobeError('EILSEQ', `${where} is not inside a known function`);
    const r = canProbe(
      (a) => this.readByte(a),
      loc.sym.address,
      BigInt(loc.sym.size),
      addr,
      (a) => recoverProbedByte(this.k, this.opt, a),
    );
    if (!r.ok) throw new KprobeError(r.reason === 'exception-insn' ? 'EINVAL' : 'EILSEQ', `${where}: ${r.message}`);
  }

  /**
   * `arch_prepare_kprobe`: copy the instruction into a fresh slot, fixing a RIP-relative operand.
   * @see arch/x86/kernel/kprobes/core.c arch_prepare_kprobe(), __copy_instruction()
   */
  prepare(addr: bigint): X86Site {
    const m = this.m;
    const bytes = new Uint8Array(MAX_INSN_SIZE);
    for (let i = 0; i < MAX_INSN_SIZE; i++) {
      bytes[i] = this.opt.recoverOptprobedByte(addr + BigInt(i)) ?? this.readByte(addr + BigInt(i)) ?? 0;
    }
    this.booster.garbage.collectGarbageSlots();
    const slot = this.slots.getInsnSlot();
    const copy = copyInstruction(bytes, addr, slot);
    if (!copy.ok) {
      this.slots.freeInsnSlot(slot);
      throw new KprobeError('EINVAL', `${m.kallsyms.format(addr)}: ${copy.message}`);
    }
    m.memory.textPoke(slot, copy.insn);
    return Object.freeze({
      slot,
      opcode: copy.opcode,
      text: copy.decoded.text,
      insn: copy.insn,
      length: copy.length,
      ifModifier: isIfModifier(copy.insn),
      plan: resumeExecutionPlan(copy.insn),
      slotLo: lo32(slot),
      slotHi: hi32(slot),
      resumeDelta: Number(addr - slot),
      boost: new BoostState(initialBoostable(copy.insn, m.exTable.has(addr)).boostable),
    });
  }

  /** `arch_arm_kprobe`: `int3` over the first byte, through `text_poke`. */
  arm(site: ProbeSite): void {
    const m = this.m;
    const poke = m.memory.textPoke(site.addr, new Uint8Array([BREAKPOINT_INSTRUCTION]));
    m.space.markInstrumentation(site.addr, 1, true);
    site.armed = true;
    this.k.emit({
      type: 'kprobe:armed',
      at: this.k.now(),
      cpu: -1,
      addr: site.addr,
      symbol: site.symbol,
      before: poke.before[0],
      after: BREAKPOINT_INSTRUCTION,
    });
  }

  /** `arch_disarm_kprobe`: the original first byte back. */
  disarm(site: ProbeSite): void {
    const m = this.m;
    m.memory.textPoke(site.addr, new Uint8Array([site.arch.opcode]));
    m.space.markInstrumentation(site.addr, 1, false);
    site.armed = false;
    this.k.emit({
      type: 'kprobe:disarmed',
      at: this.k.now(),
      cpu: -1,
      addr: site.addr,
      symbol: site.symbol,
      restored: site.arch.opcode,
    });
  }

  /** `arch_remove_kprobe`: free the slot. */
  release(site: ProbeSite): void {
    this.booster.release(site);
  }

  /**
   * The int3 handler, called through the die chain. Returns true when the trap was a kprobe's (the
   * caller answers NOTIFY_STOP).
   * @see arch/x86/kernel/kprobes/core.c kprobe_int3_handler() (2.6.12: kprobe_handler())
   */
  kprobeInt3Handler(cpu: number, regs: PtRegs): boolean {
    const m = this.m;
    const c = m.cpus[cpu];
    if (c.cpl === 3) return false;
    // The int3's address is rip - 1: looked up by int32 halves, a bigint made only without a site.
    const site = this.k.getHalves((c.ripLow - 1) | 0, c.ripLow === 0 ? (c.ripHigh - 1) | 0 : c.ripHigh);
    const addr = site !== undefined ? site.addr : regs.ip - 1n;
    const kcb = this.k.kcb[cpu];
    if (kcb.current) {
      if (site) {
        if (kcb.status === KprobeStatus.HIT_SS && (site.arch as X86Site).insn[0] === BREAKPOINT_INSTRUCTION) {
          regs.flags = (regs.flags & ~TF) | kcb.savedFlags;
          return false;
        }
        // A probe hit while another is being handled on this CPU: step it without handlers.
        kcb.savePrevious();
        this.setCurrent(kcb, site, regs);
        site.missed();
        if (this.k.observed) {
          this.k.emit({ type: 'kprobe:missed', at: m.clock(cpu), cpu, addr, symbol: site.symbol, reason: 're-entry' });
        }
        if (this.opt.setupDetourExecution(site, regs)) {
          kcb.restorePrevious();
          return true;
        }
        this.prepareSingleStep(cpu, site, regs);
        kcb.status = KprobeStatus.REENTER;
        return true;
      }
      if (this.readByte(addr) !== BREAKPOINT_INSTRUCTION) {
        // The int3 was removed by another CPU right after we hit it: re-execute the original.
        regs.ip = addr;
        return true;
      }
      const cur = kcb.current;
      const jp = cur.breakChild;
      if (jp?.kp.breakHandler?.(jp.kp, regs)) {
        this.prepareSingleStep(cpu, cur, regs);
        kcb.status = KprobeStatus.HIT_SS;
        return true;
      }
      return false;
    }
    if (!site) {
      if (this.readByte(addr) !== BREAKPOINT_INSTRUCTION) {
        regs.ip = addr;
        return true;
      }
      return false;
    }
    this.setCurrent(kcb, site, regs);
    kcb.status = KprobeStatus.HIT_ACTIVE;
    kcb.at = m.clock(cpu);
    if (this.k.observed) {
      this.k.emit({
        type: 'kprobe:hit',
        at: kcb.at,
        cpu,
        addr,
        symbol: site.symbol,
        pid: m.sched.current[cpu]?.pid ?? 0,
        path: this.k.kprobeOptimized(site) ? 'detour' : this.booster.canRunBoosted(site) ? 'boosted' : 'int3',
      });
    }
    if (this.runPreHandlers(cpu, site, regs)) {
      // The handler set the ip itself: no single-step. A jprobe's entry keeps the probe current until
      // its jprobe_return int3.
      if (!kcb.jprobe) kcb.reset();
      return true;
    }
    if (this.opt.setupDetourExecution(site, regs)) {
      kcb.reset();
      return true;
    }
    if (this.booster.runBoosted(site, regs)) {
      kcb.reset();
      return true;
    }
    this.prepareSingleStep(cpu, site, regs);
    kcb.status = KprobeStatus.HIT_SS;
    return true;
  }

  /**
   * The debug-trap handler: post-handlers, `resume_execution`, flags restored. Returns false when TF
   * is still set afterwards: someone else is single-stepping, and `do_debug` must go on as if this
   * were not a probe's step.
   * @see arch/x86/kernel/kprobes/core.c kprobe_debug_handler() (2.6.12: post_kprobe_handler())
   */
  kprobeDebugHandler(cpu: number, regs: PtRegs): boolean {
    const kcb = this.k.kcb[cpu];
    const cur = kcb.current;
    if (!cur) return false;
    if (kcb.status !== KprobeStatus.REENTER && cur.hasPostHandler) {
      kcb.status = KprobeStatus.HIT_SSDONE;
      for (const child of cur.children) {
        if (child.disabled || !child.kp.postHandler) continue;
        child.kp.postHandler(child.kp, regs, 0);
      }
      if (this.k.observed)
        this.k.emit({ type: 'kprobe:post-handler-ran', at: kcb.at, cpu, addr: cur.addr, symbol: cur.symbol });
    }
    this.booster.afterSingleStep(cpu, cur, regs);
    resumeExecution(this.k, cpu, cur, regs, kcb);
    regs.flags |= kcb.savedFlags;
    if (kcb.status === KprobeStatus.REENTER) kcb.restorePrevious();
    else kcb.reset();
    return (regs.flags & TF) === 0;
  }

  /**
   * A fault while a probe is being handled: the probe's fault handler first;
   * then, for a fault of the single-stepped copy, the ip goes back to the probe address and the flags
   * are restored, so the kernel's own handling (an exception-table fixup, an oops) sees the original
   * instruction. Returns true only when a fault handler dealt with it.
   * @see arch/x86/kernel/kprobes/core.c kprobe_fault_handler()
   */
  kprobeFaultHandler(cpu: number, regs: PtRegs, trapnr: number): boolean {
    const kcb = this.k.kcb[cpu];
    const cur = kcb.current;
    if (!cur) return false;
    for (const child of cur.children) {
      if (!child.disabled && child.kp.faultHandler?.(child.kp, regs, trapnr)) return true;
    }
    if (kcb.status === KprobeStatus.HIT_SS || kcb.status === KprobeStatus.REENTER) {
      const ip = regs.ip;
      regs.ip = cur.addr;
      regs.flags = (regs.flags & ~TF) | kcb.oldFlags;
      if (kcb.status === KprobeStatus.REENTER) kcb.restorePrevious();
      else kcb.reset();
      if (this.k.observed)
        this.k.emit({
          type: 'kprobe:fault',
          at: this.m.clock(cpu),
          cpu,
          addr: cur.addr,
          symbol: cur.symbol,
          trapnr,
          ip,
        });
    } else if (kcb.status === KprobeStatus.HIT_ACTIVE || kcb.status === KprobeStatus.HIT_SSDONE) {
      // A fault inside a handler.
      cur.missed();
    }
    return false;
  }

  /** Aggregated pre-handlers: each enabled child in order; the first non-zero result ends it. */
  private runPreHandlers(cpu: number, site: ProbeSite, regs: PtRegs): boolean {
    for (const child of site.children) {
      if (child.disabled || !child.kp.preHandler) continue;
      const r = child.kp.preHandler(child.kp, regs);
      if (this.k.observed) {
        this.k.emit({
          type: 'kprobe:pre-handler-ran',
          at: this.k.kcb[cpu].at,
          cpu,
          addr: site.addr,
          symbol: site.symbol,
          result: Number(r ?? 0),
        });
      }
      if (r) return true;
    }
    return false;
  }

  /** `set_current_kprobe`: remember the probe and the TF/IF state to restore. */
  private setCurrent(kcb: ControlBlock, site: ProbeSite, regs: PtRegs): void {
    kcb.current = site;
    kcb.oldFlags = kcb.savedFlags = regs.flags & (TF | IF);
    if ((site.arch as X86Site).ifModifier) kcb.savedFlags &= ~IF;
  }

  /** `prepare_singlestep`: TF on, IF off, ip at the slot (or in place for an original int3). */
  private prepareSingleStep(cpu: number, site: ProbeSite, regs: PtRegs): void {
    const x = site.arch as X86Site;
    regs.flags = (regs.flags | TF) & ~IF;
    const c = regs.cpu;
    if (x.insn[0] === BREAKPOINT_INSTRUCTION) regs.ip = site.addr;
    else {
      c.setRipHalves(x.slotLo, x.slotHi);
    }
    if (this.k.observed) {
      this.k.emit({
        type: 'kprobe:single-step-begun',
        at: this.k.kcb[cpu].at,
        cpu,
        addr: site.addr,
        symbol: site.symbol,
        slot: x.slot,
        insn: x.text,
      });
    }
  }

  /** Reads one byte of kernel memory, or undefined where nothing is mapped. */
  private readByte(a: bigint): number | undefined {
    const space = this.m.space;
    return space.isMapped(a) ? space.readU8(a) : undefined;
  }
}
