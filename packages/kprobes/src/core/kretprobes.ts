import { hi32, lo32, Reg, toBig } from '@int3/cpu';
import { HOST_CALL_JUMPED, type HostCallContext, type PtRegs } from '@int3/kernel';
import { KprobeError } from '../kprobe-error.js';
import type { KprobesArchHost, KprobesTextLayout } from './arch.js';
import { type Kprobe, KprobeStatus } from './kprobe.js';
import type { KprobesHost } from './kprobes-host.js';
import { KRETPROBE_MAX_DATA_SIZE, type Kretprobe, type KretprobeInstance } from './kretprobe.js';
import { Instance } from './kretprobe-instance.js';
import type { ProbeKind, ProbeSite } from './probe-site.js';

/** What kretprobes use of the core: registering their entry probes, and the trampoline's own probe. */
export interface KretprobesHost extends Pick<KprobesArchHost, 'get' | 'kcb' | 'emit' | 'observed' | 'now'> {
  kprobeAddr(p: Kprobe): bigint;
  registerAs(p: Kprobe, kind: ProbeKind): void;
  unregisterKprobe(p: Kprobe): void;
  registerOwn(p: Kprobe, addr: bigint): ProbeSite;
  unregisterOwn(p: Kprobe): void;
}

/** The machine's part kretprobes use. */
type Host = Pick<
  KprobesHost,
  'tasks$' | 'space' | 'hostCalls' | 'kallsyms' | 'cpus' | 'sched' | 'oops' | 'log' | 'clock'
>;

interface RpState {
  readonly rp: Kretprobe;
  readonly free: Inst[];
  /** The entry probe's site (`current_kprobe` while the booster runs the handler). */
  site: ProbeSite | undefined;
  unregistered: boolean;
}

/** An instance of this module's: it knows its registration. */
type Inst = Instance<RpState>;

/**
 * Function-return probes: a kprobe on the function's first instruction takes a free instance, saves
 * the return address and puts `kretprobe_trampoline` in its place; the function returns into the
 * trampoline, which runs the handlers of the task's instances (newest first) and goes on at the real
 * return address. How the trampoline does it is {@link booster}:
 *
 * - on (x86-64 since 2.6.25's kretprobe-booster, the default): the trampoline calls the handler from
 *   its own code, without a trap (here an inline host gate on its first byte), and returns to the real
 *   address;
 * - off (2.6.12): the trampoline is a `ret` with a kprobe of its own, whose handler puts the real
 *   return address where the `ret`, single-stepped like any probed instruction, takes it from. A call
 *   then costs four interruptions: int3 at entry, its single-step, int3 at the trampoline, its step.
 *
 * @see kernel/kprobes.c register_kretprobe(), pre_handler_kretprobe(); arch/x86_64/kernel/kprobes.c
 *   arch_prepare_kretprobe(), trampoline_probe_handler() (2.6.12); arch/x86/kernel/kprobes.c
 *   kretprobe_trampoline, trampoline_handler() (2.6.25)
 */
export class Kretprobes {
  private readonly states = new Map<Kretprobe, RpState>();
  /** Instances in flight, per task (pid; 0 for host-side contexts), newest last. */
  private readonly inFlight = new Map<number, Inst[]>();
  /** `kretprobe_trampoline` as int32 halves. */
  private readonly trampolineLo: number;
  private readonly trampolineHi: number;
  /** The real return address of the last frame {@link returnFrame} went through, as int32 halves. */
  private origLo = 0;
  private origHi = 0;
  /** The trampoline's own kprobe while the booster is off. */
  private trampolineProbe: Kprobe | undefined;
  private boosted = false;
  /** The probe on `kretprobe_trampoline` while the booster is off. */
  trampolineSite: ProbeSite | undefined;

  constructor(
    private readonly m: Host,
    private readonly k: KretprobesHost,
    private readonly text: Pick<KprobesTextLayout, 'trampoline' | 'trampolineBug'>,
  ) {
    this.trampolineLo = lo32(text.trampoline);
    this.trampolineHi = hi32(text.trampoline);
    this.booster = true;
    m.tasks$.subscribe((e) => {
      if (e.type === 'task:exited') this.flushTask(e.pid);
    });
  }

  /**
   * The kretprobe booster: on, the trampoline runs the handlers without a trap; off, through its own
   * kprobe (int3 and a single-step), as in 2.6.12. Like a registration, it is an input of a run, not
   * part of its snapshots. Switching is refused (EBUSY) while a CPU is inside the trampoline's kprobe;
   * returns in flight go through the trampoline either way.
   */
  get booster(): boolean {
    return this.boosted;
  }

  set booster(on: boolean) {
    if (on === this.boosted) return;
    const k = this.k;
    const m = this.m;
    const trampoline = this.text.trampoline;
    if (on) {
      const site = this.trampolineSite;
      if (site !== undefined && k.kcb.some((c) => c.current === site)) {
        throw new KprobeError('EBUSY', 'a CPU is inside the kretprobe trampoline');
      }
      if (this.trampolineProbe !== undefined) k.unregisterOwn(this.trampolineProbe);
      this.trampolineProbe = undefined;
      this.trampolineSite = undefined;
      m.space.markGate(trampoline, true);
      m.hostCalls.bind('kretprobe_trampoline', trampoline, (ctx) => this.boostedTrampoline(ctx), { inline: true });
    } else {
      m.hostCalls.unbind(trampoline);
      m.space.markGate(trampoline, false);
      m.space.markInstrumentation(trampoline, 1, true);
      const probe: Kprobe = { addr: trampoline, preHandler: (_p, regs) => this.trampolineHandler(regs) };
      const site = k.registerOwn(probe, trampoline);
      // The trampoline's `ret`, stepped from its slot, stands for no instruction of the program.
      m.space.markInstrumentation(site.arch.slot, 1, true);
      this.trampolineProbe = probe;
      this.trampolineSite = site;
    }
    this.boosted = on;
  }

  /**
   * A task is dead: the returns it had in flight (a syscall that never returns, such as `exit`, or a
   * stack discarded by a kill) will never reach the trampoline; their instances go back to their
   * kretprobes' free lists.
   * @see kernel/kprobes.c kprobe_flush_task()
   */
  flushTask(pid: number): void {
    const list = this.inFlight.get(pid);
    if (list === undefined) return;
    this.inFlight.delete(pid);
    for (const ri of list) {
      if (!ri.owner.unregistered) ri.owner.free.push(ri);
      if (this.k.observed) {
        const addr = ri.rp.kp.addr ?? 0n;
        const symbol = ri.rp.kp.addr ? this.m.kallsyms.format(ri.rp.kp.addr) : '?';
        this.k.emit({ type: 'kretprobe:flushed', at: this.k.now(), cpu: -1, addr, symbol, pid });
      }
    }
  }

  /**
   * Registers a return probe. The address must be a function entry (EINVAL), `dataSize` at most 4096
   * (E2BIG); `maxactive` defaults to `max(10, 2 × NR_CPUS)` and is written back.
   * @see kernel/kprobes.c register_kretprobe()
   */
  registerKretprobe(rp: Kretprobe): void {
    if (this.states.has(rp)) throw new KprobeError('EINVAL', 'this kretprobe is already registered');
    const addr = this.k.kprobeAddr(rp.kp);
    const loc = this.m.kallsyms.lookup(addr);
    if (loc?.offset !== 0) {
      throw new KprobeError('EINVAL', `${this.m.kallsyms.format(addr)} is not a function entry`);
    }
    if ((rp.dataSize ?? 0) > KRETPROBE_MAX_DATA_SIZE) {
      throw new KprobeError('E2BIG', `data_size ${rp.dataSize} is larger than ${KRETPROBE_MAX_DATA_SIZE}`);
    }
    if (!(rp.maxactive && rp.maxactive > 0)) rp.maxactive = Math.max(10, 2 * this.m.cpus.length);
    rp.nmissed = 0;
    // A kretprobe unregistered and registered again keeps its `rp` object but gets a new state: an
    // instance of the old registration still in flight neither runs the handler nor joins the new list.
    const state: RpState = { rp, free: [], site: undefined, unregistered: false };
    for (let i = 0; i < rp.maxactive; i++) state.free.push(new Instance(rp, state, new Uint8Array(rp.dataSize ?? 0)));
    rp.kp.preHandler = (_p, regs) => this.entryHandler(state, regs);
    rp.kp.postHandler = undefined;
    this.k.registerAs(rp.kp, 'r');
    state.site = this.k.get(addr);
    this.states.set(rp, state);
  }

  /**
   * Unregisters a return probe; returns already in flight still go back to their callers, without
   * running the handler.
   * @see kernel/kprobes.c unregister_kretprobe()
   */
  unregisterKretprobe(rp: Kretprobe): void {
    const state = this.states.get(rp);
    if (!state) return;
    this.k.unregisterKprobe(rp.kp);
    state.unregistered = true;
    this.states.delete(rp);
  }

  /**
   * Registrations, instances in flight and free, for snapshots (instances are copied with their owning
   * registration; kretprobes and registrations kept by identity, with the entry handler that serves
   * each: a kretprobe registered again since has another).
   */
  save(): unknown {
    const copy = (ri: Inst) => ri.copy();
    return {
      inFlight: [...this.inFlight].map(([pid, list]) => [pid, list.map(copy)] as const),
      states: [...this.states].map(
        ([rp, st]) => [rp, st, st.free.map(copy), rp.nmissed, st.site, st.unregistered, rp.kp.preHandler!] as const,
      ),
    };
  }

  /** Restores {@link save}'s state: a kretprobe registered since is no longer registered. */
  restore(state: unknown): void {
    const s = state as {
      inFlight: readonly (readonly [number, readonly Inst[]])[];
      states: readonly (readonly [
        Kretprobe,
        RpState,
        readonly Inst[],
        number | undefined,
        ProbeSite | undefined,
        boolean,
        NonNullable<Kprobe['preHandler']>,
      ])[];
    };
    const revive = (ri: Inst) => ri.copy();
    this.inFlight.clear();
    for (const [pid, list] of s.inFlight) this.inFlight.set(pid, list.map(revive));
    for (const st of this.states.values()) st.unregistered = true;
    this.states.clear();
    for (const [rp, st, free, nmissed, site, unregistered, pre] of s.states) {
      st.free.splice(0, st.free.length, ...free.map(revive));
      st.site = site;
      st.unregistered = unregistered;
      rp.nmissed = nmissed;
      rp.kp.preHandler = pre;
      this.states.set(rp, st);
    }
  }

  /** Instances currently in flight (all tasks). */
  get activeInstances(): number {
    let n = 0;
    for (const list of this.inFlight.values()) n += list.length;
    return n;
  }

  /** `pre_handler_kretprobe` + `arch_prepare_kretprobe`. */
  private entryHandler(state: RpState, regs: PtRegs): number {
    const { rp } = state;
    const m = this.m;
    const cpu = regs.cpu.id;
    const ri = state.free.pop();
    const pid = m.sched.current[cpu]?.pid ?? 0;
    if (!ri) {
      rp.nmissed = (rp.nmissed ?? 0) + 1;
      if (this.k.observed)
        this.k.emit({
          type: 'kprobe:missed',
          at: m.clock(cpu),
          cpu,
          addr: rp.kp.addr!,
          symbol: m.kallsyms.format(rp.kp.addr!),
          reason: 'maxactive',
        });
      return 0;
    }
    ri.pid = pid;
    if (rp.entryHandler?.(ri, regs)) {
      state.free.push(ri);
      return 0;
    }
    // The return address at sp, swapped for the trampoline's (as int32 halves: no bigint per hit).
    const c = regs.cpu;
    const spLo = c.regLo(Reg.RSP);
    const spHi = c.regHi(Reg.RSP);
    ri.slotLo = spLo;
    ri.slotHi = spHi;
    const page = c.addressSpace.lookupForWrite(spLo, spHi);
    const off = spLo & 0xfff;
    if (page !== undefined && off <= 4096 - 8) {
      ri.retLo = page.view.getInt32(off, true);
      ri.retHi = page.view.getInt32(off + 4, true);
      page.view.setInt32(off, this.trampolineLo, true);
      page.view.setInt32(off + 4, this.trampolineHi, true);
      page.onWrite(off, 8);
    } else {
      // Across a page end, or unmapped (the host access throws as a readU64 would).
      const sp = regs.sp;
      ri.retAddr = c.addressSpace.readU64(sp);
      c.addressSpace.writeU64(sp, this.text.trampoline);
    }
    const list = this.inFlight.get(pid);
    if (list) list.push(ri);
    else this.inFlight.set(pid, [ri]);
    if (this.k.observed) {
      this.k.emit({
        type: 'kretprobe:return-address-swapped',
        at: m.clock(cpu),
        cpu,
        addr: rp.kp.addr!,
        symbol: m.kallsyms.format(rp.kp.addr!),
        pid,
        original: ri.retAddr,
        trampoline: this.text.trampoline,
      });
    }
    return 0;
  }

  /** `trampoline_probe_handler` (2.6.12): run the handlers of this frame's instances, then go home. */
  private trampolineHandler(regs: PtRegs): number {
    const sp = regs.sp;
    if (!this.returnFrame(regs, false)) {
      this.m.oops(regs.cpu.id, BUG);
      return 1;
    }
    // The trampoline is a `ret`: hand it the real return address in the slot it was taken from.
    regs.sp = sp - 8n;
    regs.cpu.addressSpace.writeU64(regs.sp, toBig(this.origLo, this.origHi));
    return 0;
  }

  /**
   * `trampoline_handler` (the booster): called from the trampoline with `ip` at it, runs the handlers
   * and returns to the real address; a return without an instance ends in the trampoline's `BUG()`.
   */
  private boostedTrampoline(ctx: HostCallContext): typeof HOST_CALL_JUMPED {
    const regs = ctx.regs;
    const c = regs.cpu;
    const spLo = c.regLo(Reg.RSP);
    const spHi = c.regHi(Reg.RSP);
    const found = this.returnFrame(regs, true);
    // The trampoline's code restores the registers the handlers may change, but not sp.
    c.setRegHalves(Reg.RSP, spLo, spHi);
    if (found) {
      c.setRipHalves(this.origLo, this.origHi);
    } else {
      this.m.log(ctx.cpu, 0, BUG);
      regs.ip = this.text.trampolineBug;
    }
    return HOST_CALL_JUMPED;
  }

  /**
   * Runs the handlers of the frame returning to the trampoline (all of the task's newest instances up
   * to the one holding the real return address) and leaves that address in `origLo`/`origHi`; false,
   * after the kretprobe BUG! lines, when the return matches no instance (sp must be just above the
   * newest instance's slot). With the booster the handlers run as `current_kprobe` (the trampoline's
   * own kprobe is current without it).
   */
  private returnFrame(regs: PtRegs, boosted: boolean): boolean {
    const m = this.m;
    const c = regs.cpu;
    const cpu = c.id;
    const pid = m.sched.current[cpu]?.pid ?? 0;
    const list = this.inFlight.get(pid);
    const newest = list?.[list.length - 1];
    // sp - 8, as int32 halves: where the `ret` took the trampoline's address from.
    const spLo = c.regLo(Reg.RSP);
    const slotLo = (spLo - 8) | 0;
    const slotHi = (spLo >>> 0 < 8 ? c.regHi(Reg.RSP) - 1 : c.regHi(Reg.RSP)) | 0;
    if (list === undefined || newest === undefined || newest.slotLo !== slotLo || newest.slotHi !== slotHi) {
      const trampoline = this.text.trampoline;
      const sp = regs.sp;
      const what = newest ? m.kallsyms.format(newest.rp.kp.addr!) : 'none';
      m.log(cpu, 0, `kretprobe BUG!: Processing kretprobe ${what} @ ${m.kallsyms.format(trampoline)}`);
      m.log(
        cpu,
        0,
        `kretprobe BUG!: task ${pid} returned to the trampoline with sp ${hex(sp)}, expected ${newest ? hex(newest.stackSlot + 8n) : 'an instance'}`,
      );
      return false;
    }
    const kcb = this.k.kcb[cpu];
    let origLo = this.trampolineLo;
    let origHi = this.trampolineHi;
    while (list.length > 0) {
      const ri = list.pop()!;
      const state = ri.owner;
      if (!state.unregistered && ri.rp.handler) {
        if (boosted) {
          const current = kcb.current;
          const status = kcb.status;
          kcb.current = state.site;
          kcb.status = KprobeStatus.HIT_ACTIVE;
          ri.rp.handler(ri, regs);
          kcb.current = current;
          kcb.status = status;
        } else ri.rp.handler(ri, regs);
      }
      origLo = ri.retLo;
      origHi = ri.retHi;
      if (this.k.observed) {
        this.k.emit({
          type: 'kretprobe:trampoline-hit',
          at: m.clock(cpu),
          cpu,
          addr: ri.rp.kp.addr ?? 0n,
          symbol: ri.rp.kp.addr ? m.kallsyms.format(ri.rp.kp.addr) : '?',
          pid,
          returnTo: ri.retAddr,
          retval: regs.ax,
        });
      }
      if (!state.unregistered) state.free.push(ri);
      if (origLo !== this.trampolineLo || origHi !== this.trampolineHi) break;
    }
    this.origLo = origLo;
    this.origHi = origHi;
    return true;
  }
}

const BUG = 'kernel BUG at kernel/kprobes.c: kretprobe trampoline without a matching instance';

const hex = (v: bigint) => `0x${v.toString(16)}`;

export type { Kretprobe, KretprobeInstance };
