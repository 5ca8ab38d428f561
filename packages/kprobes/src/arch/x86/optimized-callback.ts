import { type Cpu, hi32, lo32, Reg } from '@int3/cpu';
import { HOST_CALL_JUMPED, type HostCallContext } from '@int3/kernel';
import type { KprobesArchHost } from '../../core/arch.js';
import type { ControlBlock } from '../../core/control-block.js';
import { KprobeStatus } from '../../core/kprobe.js';
import type { KprobesHost } from '../../core/kprobes-host.js';
import type { ProbeSite } from '../../core/probe-site.js';

/** One optimized site's gate: the probe, and the two addresses the gate moves `rip` to, as int32 halves. */
export interface OptGate {
  readonly site: ProbeSite;
  /** `addr + 1`: `regs->ip` while the pre-handlers run, as after an int3. */
  readonly ipLo: number;
  readonly ipHi: number;
  /** The copied DCR in the detour buffer, where the CPU continues. */
  readonly resumeLo: number;
  readonly resumeHi: number;
}

/** `!kprobe_disabled(ap)`, without the getter's callback (this runs on every optimized hit). */
function enabled(site: ProbeSite): boolean {
  const children = site.children;
  for (let i = 0; i < children.length; i++) if (!children[i].disabled) return true;
  return false;
}

/** The {@link OptGate} of a site whose detour buffer (its copied DCR) starts at `resume`. */
export function optGate(site: ProbeSite, resume: bigint): OptGate {
  const ip = site.addr + 1n;
  return Object.freeze({ site, ipLo: lo32(ip), ipHi: hi32(ip), resumeLo: lo32(resume), resumeHi: hi32(resume) });
}

/**
 * The optimized callback. The probe's `jmp rel32` leads to the gate at the start of its detour buffer,
 * so when it runs the CPU's registers are the probed context itself (nothing was pushed or changed on
 * the way): `regs` is the live `pt_regs` view, with `ip = addr + 1` (and `orig_ax` -1) as at an int3
 * hit. Pre-handlers run (their return values ignored); what they change in the general registers and
 * the flags stays, a changed `ip` (and `sp`) is ignored as Linux documents; then the CPU continues at
 * the buffer's copy of the region, right after the gate. Nothing runs when the probe is disabled (its
 * unoptimization is pending), and a miss is counted when a kprobe is already running on this CPU.
 * @see arch/x86/kernel/kprobes/opt.c optimized_callback(), kernel/kprobes.c opt_pre_handler()
 */
export class OptimizedCallback {
  private readonly cpus: readonly Cpu[];
  private readonly kcb: readonly ControlBlock[];

  constructor(
    private readonly m: Pick<KprobesHost, 'cpus' | 'clock' | 'sched'>,
    private readonly k: Pick<KprobesArchHost, 'kcb' | 'emit' | 'observed'>,
  ) {
    this.cpus = m.cpus;
    this.kcb = k.kcb;
  }

  /** The gate handler of one site. */
  handle(ctx: HostCallContext, gate: OptGate): typeof HOST_CALL_JUMPED {
    const site = gate.site;
    const cpu = ctx.cpu;
    const c = this.cpus[cpu];
    if (enabled(site)) {
      const kcb = this.kcb[cpu];
      if (kcb.current !== undefined) this.miss(cpu, site);
      else {
        // The handlers see ip = addr + 1; what they do to ip and sp is undone, as Linux documents.
        const spLo = c.regLo(Reg.RSP);
        const spHi = c.regHi(Reg.RSP);
        c.setRipHalves(gate.ipLo, gate.ipHi);
        kcb.current = site;
        kcb.status = KprobeStatus.HIT_ACTIVE;
        this.runPreHandlers(cpu, site, ctx);
        kcb.reset();
        c.setRegHalves(Reg.RSP, spLo, spHi);
      }
    }
    c.setRipHalves(gate.resumeLo, gate.resumeHi);
    return HOST_CALL_JUMPED;
  }

  /** `opt_pre_handler`: every enabled child's pre-handler, return values ignored. */
  private runPreHandlers(cpu: number, site: ProbeSite, ctx: HostCallContext): void {
    const k = this.k;
    const regs = ctx.regs;
    const observed = k.observed;
    const at = observed ? this.m.clock(cpu) : 0;
    if (observed) {
      k.kcb[cpu].at = at;
      k.emit({
        type: 'kprobe:hit',
        at,
        cpu,
        addr: site.addr,
        symbol: site.symbol,
        pid: this.m.sched.current[cpu]?.pid ?? 0,
        path: 'optimized',
      });
    }
    const children = site.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (child.disabled || !child.kp.preHandler) continue;
      const r = child.kp.preHandler(child.kp, regs);
      if (observed) {
        k.emit({
          type: 'kprobe:pre-handler-ran',
          at,
          cpu,
          addr: site.addr,
          symbol: site.symbol,
          result: Number(r ?? 0),
        });
      }
    }
  }

  private miss(cpu: number, site: ProbeSite): void {
    site.missed();
    const k = this.k;
    if (k.observed) {
      k.emit({
        type: 'kprobe:missed',
        at: this.m.clock(cpu),
        cpu,
        addr: site.addr,
        symbol: site.symbol,
        reason: 're-entry',
      });
    }
  }
}
