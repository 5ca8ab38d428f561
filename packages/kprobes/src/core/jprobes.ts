import { type RegIndex, Rflags } from '@int3/cpu';
import { KernelLayout, type PtRegs, SYSV_ARG_REGS } from '@int3/kernel';
import { KprobeError } from '../kprobe-error.js';
import type { KprobesArchHost, KprobesTextLayout } from './arch.js';
import type { Kprobe } from './kprobe.js';
import type { KprobesHost } from './kprobes-host.js';
import type { ProbeKind, ProbeState } from './probe-site.js';

/** What jprobes use of the core. */
export interface JprobesHost extends Pick<KprobesArchHost, 'kcb' | 'emit'> {
  kprobeAddr(p: Kprobe): bigint;
  registerAs(p: Kprobe, kind: ProbeKind): void;
  unregisterKprobe(p: Kprobe): void;
  stateOf(p: Kprobe): ProbeState | undefined;
}

/** The machine's part jprobes use. */
type Host = Pick<
  KprobesHost,
  'kallsyms' | 'symbols' | 'modules' | 'clock' | 'space' | 'pcpu' | 'log' | 'oops' | 'sched' | 'hostStackTop'
>;

/** `MAX_STACK_SIZE`: bytes of the probed function's stack a jprobe saves and restores. */
export const MAX_STACK_SIZE = 64;

/** A host (TypeScript) jprobe entry: the probed function's first six arguments, per the SysV ABI. */
export type JprobeHostEntry = (args: readonly bigint[], regs: PtRegs) => void;

/**
 * `struct jprobe`: run `entry` with the probed function's arguments on every call. A guest entry (an
 * address) is a C function with the probed function's prototype that ends with `jprobe_return()`;
 * a host entry is a TypeScript function.
 *
 * @see include/linux/kprobes.h struct jprobe (2.6 era)
 */
export interface Jprobe {
  kp: Kprobe;
  entry: bigint | JprobeHostEntry;
}

/**
 * Jprobes, the seed mechanism for mirroring a function's arguments: `setjmp_pre_handler` saves the
 * registers and the top `MIN_STACK_SIZE(rsp)` bytes of stack, clears IF and sends the CPU to the
 * entry, which runs with the probed function's registers and stack. The entry ends in
 * `jprobe_return()` (`xchg %rbx,%rsp; int3`); `longjmp_break_handler` recognises that int3, checks the
 * stack pointer, restores registers and stack, and the probed instruction is single-stepped as usual.
 *
 * @see arch/x86_64/kernel/kprobes.c setjmp_pre_handler(), jprobe_return(), longjmp_break_handler()
 */
export class Jprobes {
  private readonly registered = new Set<Jprobe>();

  constructor(
    private readonly m: Host,
    private readonly k: JprobesHost,
    private readonly text: Pick<KprobesTextLayout, 'jprobeReturn' | 'jprobeReturnEnd' | 'savedSpOffset'>,
  ) {}

  /**
   * Registers a jprobe at a function entry (EINVAL otherwise); a guest entry must be kernel or module
   * text (EINVAL); a second jprobe at the same address → EEXIST.
   * @see kernel/kprobes.c register_jprobe()
   */
  registerJprobe(jp: Jprobe): void {
    const m = this.m;
    const addr = this.k.kprobeAddr(jp.kp);
    const loc = m.kallsyms.lookup(addr);
    if (loc?.offset !== 0) throw new KprobeError('EINVAL', `${m.kallsyms.format(addr)} is not a function entry`);
    if (typeof jp.entry === 'bigint') {
      const e = jp.entry;
      const text = (e >= m.symbols._stext && e < m.symbols._etext) || m.modules.moduleAt(e) !== undefined;
      if (!text) throw new KprobeError('EINVAL', `jprobe entry ${m.kallsyms.format(e)} is not kernel or module text`);
    }
    jp.kp.preHandler = (_p, regs) => this.setjmp(jp, regs);
    jp.kp.breakHandler = (_p, regs) => this.longjmp(regs);
    this.k.registerAs(jp.kp, 'j');
    this.registered.add(jp);
  }

  /** @see kernel/kprobes.c unregister_jprobe() */
  unregisterJprobe(jp: Jprobe): void {
    if (!this.registered.delete(jp)) return;
    this.k.unregisterKprobe(jp.kp);
  }

  /** The registered jprobes with their handlers, for snapshots (by identity). */
  save(): unknown {
    return Object.freeze([...this.registered].map((jp) => Object.freeze([jp, jp.kp.preHandler!, jp.kp.breakHandler!])));
  }

  /** Restores {@link save}'s registrations (a jprobe registered since is no longer registered). */
  restore(state: unknown): void {
    this.registered.clear();
    for (const [jp, pre, brk] of state as readonly (readonly [
      Jprobe,
      NonNullable<Kprobe['preHandler']>,
      NonNullable<Kprobe['breakHandler']>,
    ])[]) {
      this.registered.add(jp);
      jp.kp.preHandler = pre;
      jp.kp.breakHandler = brk;
    }
  }

  /** `setjmp_pre_handler`. */
  private setjmp(jp: Jprobe, regs: PtRegs): number {
    const m = this.m;
    const cpu = regs.cpu.id;
    const c = regs.cpu;
    const kcb = this.k.kcb[cpu];
    const args = SYSV_ARG_REGS.map((r) => c.getReg(r));
    if (typeof jp.entry === 'function') {
      // A host entry sees the arguments and returns at once: nothing to unwind.
      this.k.emit({
        type: 'jprobe:entered',
        at: m.clock(cpu),
        cpu,
        addr: jp.kp.addr!,
        symbol: m.kallsyms.format(jp.kp.addr!),
        entry: jp.entry.name || '(host)',
      });
      jp.entry(args, regs);
      this.k.emit({
        type: 'jprobe:returned',
        at: m.clock(cpu),
        cpu,
        addr: jp.kp.addr!,
        symbol: m.kallsyms.format(jp.kp.addr!),
      });
      return 0;
    }
    const gpr: bigint[] = [];
    for (let r = 0; r < 16; r++) gpr.push(c.getReg(r as RegIndex));
    kcb.jprobeRegs = { gpr, ip: regs.ip, flags: regs.flags };
    const sp = regs.sp;
    kcb.jprobeSp = sp;
    kcb.jprobeStack = c.addressSpace.read(sp, minStackSize(m, cpu, sp));
    kcb.jprobe = this.k.stateOf(jp.kp);
    m.space.writeU64(m.pcpu[cpu] + BigInt(this.text.savedSpOffset), sp);
    regs.flags &= ~Rflags.IF;
    regs.ip = jp.entry;
    // The entry is the probe's handler: it costs no virtual time.
    c.instrumentationMode = true;
    this.k.emit({
      type: 'jprobe:entered',
      at: m.clock(cpu),
      cpu,
      addr: jp.kp.addr!,
      symbol: m.kallsyms.format(jp.kp.addr!),
      entry: m.kallsyms.format(jp.entry),
    });
    return 1;
  }

  /** `longjmp_break_handler`: true when the int3 was `jprobe_return`'s. */
  private longjmp(regs: PtRegs): number {
    const m = this.m;
    const cpu = regs.cpu.id;
    const c = regs.cpu;
    const kcb = this.k.kcb[cpu];
    const addr = regs.ip - 1n;
    const text = this.text;
    if (!kcb.jprobe || addr < text.jprobeReturn || addr >= text.jprobeReturnEnd) return 0;
    c.instrumentationMode = false;
    if (regs.sp !== kcb.jprobeSp) {
      const px = (v: bigint) => v.toString(16).padStart(16, '0');
      m.log(cpu, 0, `current rsp ${px(regs.sp)} does not match saved rsp ${px(kcb.jprobeSp)}`);
      m.log(cpu, 0, `Saved registers for jprobe ${m.kallsyms.format(kcb.jprobe.site.addr)}`);
      m.oops(cpu, 'kernel BUG at arch/x86_64/kernel/kprobes.c: jprobe stack pointer mismatch');
      kcb.jprobe = undefined;
      kcb.reset();
      return 1;
    }
    const saved = kcb.jprobeRegs!;
    for (let r = 0; r < 16; r++) c.setReg(r as RegIndex, saved.gpr[r]);
    regs.ip = saved.ip;
    regs.flags = saved.flags;
    c.addressSpace.write(kcb.jprobeSp, kcb.jprobeStack!);
    this.k.emit({
      type: 'jprobe:returned',
      at: m.clock(cpu),
      cpu,
      addr: kcb.jprobe.site.addr,
      symbol: kcb.jprobe.site.symbol,
    });
    kcb.jprobe = undefined;
    kcb.jprobeRegs = undefined;
    kcb.jprobeStack = undefined;
    return 1;
  }
}

/** `MIN_STACK_SIZE(addr)`: at most 64 bytes, never past the top of the kernel stack. */
function minStackSize(m: Host, cpu: number, sp: bigint): number {
  const task = m.sched.current[cpu];
  const top = task ? task.kernelStack + BigInt(KernelLayout.THREAD_SIZE) : m.hostStackTop[cpu];
  const room = top > sp ? Number(top - sp) : MAX_STACK_SIZE;
  return Math.min(MAX_STACK_SIZE, room);
}
