import { Reg, type RegIndex } from '@int3/cpu';
import { type HostCallContext, PT_REGS_OFFSET, type PtRegName } from '@int3/kernel';
import { KprobeStatus } from '../../core/kprobe.js';
import type { Kprobes } from '../../core/kprobes.js';

/** The general registers the detour saves, with their `pt_regs` offsets (everything but `sp`). */
const SAVED: readonly (readonly [RegIndex, number])[] = (
  [
    [Reg.R15, 'r15'],
    [Reg.R14, 'r14'],
    [Reg.R13, 'r13'],
    [Reg.R12, 'r12'],
    [Reg.RBP, 'bp'],
    [Reg.RBX, 'bx'],
    [Reg.R11, 'r11'],
    [Reg.R10, 'r10'],
    [Reg.R9, 'r9'],
    [Reg.R8, 'r8'],
    [Reg.RAX, 'ax'],
    [Reg.RCX, 'cx'],
    [Reg.RDX, 'dx'],
    [Reg.RSI, 'si'],
    [Reg.RDI, 'di'],
  ] as const
).map(([r, n]: readonly [RegIndex, PtRegName]) => [r, PT_REGS_OFFSET[n]] as const);

const SI = BigInt(PT_REGS_OFFSET.si);
const DI = BigInt(PT_REGS_OFFSET.di);
const FLAGS = BigInt(PT_REGS_OFFSET.flags);
/** The probed %rsp, from the frame: the detour's first push stored it just below, at the `ss` offset. */
const SS = PT_REGS_OFFSET.ss;

/** Per-CPU scratch: the register halves before the handlers ran. */
interface Scratch {
  readonly lo: Int32Array;
  readonly hi: Int32Array;
}

/**
 * The optimized callback, reached from a detour buffer through a host-call gate with `%rdi` = the probe
 * address and `%rsi` = the `pt_regs` frame the detour pushed. For the pre-handlers the CPU briefly
 * takes the probed context back (registers from the frame, `%rsp` the probed one, `ip = addr + 1` as
 * after an int3), so `regs` reads as at an int3 hit; what a handler changes in the general registers or
 * the flags goes back into the frame (the detour pops it); a changed `ip` is ignored, as Linux
 * documents. Returns without running anything when the probe is disabled (its unoptimization is
 * pending), and counts a miss when a kprobe is already running on this CPU.
 * @see arch/x86/kernel/kprobes/opt.c optimized_callback(), kernel/kprobes.c opt_pre_handler()
 */
export class OptimizedCallback {
  private readonly scratch: readonly Scratch[];

  constructor(private readonly k: Kprobes) {
    this.scratch = k.m.cpus.map(() => ({ lo: new Int32Array(16), hi: new Int32Array(16) }));
  }

  /** The gate handler. */
  handle(ctx: HostCallContext): undefined {
    const k = this.k;
    const cpu = ctx.cpu;
    const c = k.m.cpus[cpu];
    const addr = c.getReg(Reg.RDI);
    const site = k.get(addr);
    if (!site || site.disabled) return undefined;
    const kcb = k.kcb[cpu];
    if (kcb.current) {
      site.missed();
      if (k.observed) {
        k.emit({ type: 'kprobe:missed', at: k.m.clock(cpu), cpu, addr, symbol: site.symbol, reason: 're-entry' });
      }
      return undefined;
    }
    const { R, H } = c;
    const space = c.addressSpace;
    const frame = c.getReg(Reg.RSI);
    // The gate's context, put back at the end, kept as int32 halves (no bigint on the way back).
    const frameLo = R[Reg.RSI];
    const frameHi = H[Reg.RSI];
    const addrLo = R[Reg.RDI];
    const addrHi = H[Reg.RDI];
    const gateSpLo = R[Reg.RSP];
    const gateSpHi = H[Reg.RSP];
    const gateIpLo = c.ripLo;
    const gateIpHi = c.ripHi;
    const regs = ctx.regs;
    const origAx = regs.origAx;
    // Step 1: the probed context, as an int3 hit would show it. Only %rsi and %rdi were changed on the
    // way (the template's lea keeps the flags); %rsp is where the detour's first push went, plus 8.
    c.setReg(Reg.RSI, space.readU64(frame + SI));
    c.setReg(Reg.RDI, space.readU64(frame + DI));
    const spLo = (frameLo >>> 0) + SS;
    R[Reg.RSP] = spLo | 0;
    H[Reg.RSP] = spLo > 0xffffffff ? (frameHi + 1) | 0 : frameHi;
    const flags = c.rflags;
    const ipLo = (addrLo >>> 0) + 1;
    c.ripLo = ipLo | 0;
    c.ripHi = ipLo > 0xffffffff ? (addrHi + 1) | 0 : addrHi;
    regs.origAx = -1n;
    const before = this.scratch[cpu];
    before.lo.set(R);
    before.hi.set(H);
    // Step 2: the pre-handlers of every enabled child; their return values are ignored.
    kcb.current = site;
    kcb.status = KprobeStatus.HIT_ACTIVE;
    kcb.at = k.m.clock(cpu);
    if (k.observed) {
      k.emit({
        type: 'kprobe:hit',
        at: kcb.at,
        cpu,
        addr,
        symbol: site.symbol,
        pid: k.m.sched.current[cpu]?.pid ?? 0,
        path: 'optimized',
      });
    }
    for (const child of site.children) {
      if (child.disabled || !child.kp.preHandler) continue;
      const r = child.kp.preHandler(child.kp, regs);
      if (k.observed) {
        k.emit({ type: 'kprobe:pre-handler-ran', at: kcb.at, cpu, addr, symbol: site.symbol, result: Number(r ?? 0) });
      }
    }
    kcb.reset();
    // Step 3: what the handlers changed goes into the frame; the CPU goes back to the detour.
    for (let i = 0; i < SAVED.length; i++) {
      const r = SAVED[i][0];
      if (R[r] !== before.lo[r] || H[r] !== before.hi[r]) space.writeU64(frame + BigInt(SAVED[i][1]), c.getReg(r));
    }
    const after = c.rflags;
    if (after !== flags) space.writeU64(frame + FLAGS, BigInt(after));
    regs.origAx = origAx;
    R[Reg.RSI] = frameLo;
    H[Reg.RSI] = frameHi;
    R[Reg.RDI] = addrLo;
    H[Reg.RDI] = addrHi;
    R[Reg.RSP] = gateSpLo;
    H[Reg.RSP] = gateSpHi;
    c.ripLo = gateIpLo;
    c.ripHi = gateIpHi;
    return undefined;
  }
}
