import { type Cpu, ExceptionVector, Reg, Rflags, type RunResult } from '@int3/cpu';
import type { MachineEvents } from '../events/machine-events.js';
import type { Kallsyms } from '../kallsyms/kallsyms.js';
import type { Clock } from '../machine/cpu-clocks.js';
import type { KernelPanic } from '../machine/kernel-panic.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import type { Task } from '../sched/task.js';
import { type DieArgs, type DieChain, DieVal, type DieValue, NotifyResult } from './die-chain.js';
import { oopsReport } from './oops-report.js';
import type { PtRegs } from './pt-regs.js';

type ExceptionResult = Extract<RunResult, { reason: 'exception' }>;

/** Signal numbers the kernel sends for faults. */
export const Signal = { SIGILL: 4, SIGTRAP: 5, SIGFPE: 8, SIGKILL: 9, SIGSEGV: 11 } as const;

/** How a trap is announced to the die chain: `notify_die(val, str, …)`. */
interface DieFor {
  readonly val: DieValue;
  readonly str: string;
}

const DIE_FOR_VECTOR: Readonly<Record<number, DieFor>> = {
  [ExceptionVector.DivideError]: { val: DieVal.TRAP, str: 'divide error' },
  [ExceptionVector.Debug]: { val: DieVal.DEBUG, str: 'debug' },
  [ExceptionVector.Breakpoint]: { val: DieVal.INT3, str: 'int3' },
  [ExceptionVector.InvalidOpcode]: { val: DieVal.TRAP, str: 'invalid opcode' },
  [ExceptionVector.GeneralProtection]: { val: DieVal.GPF, str: 'general protection fault' },
  [ExceptionVector.PageFault]: { val: DieVal.PAGE_FAULT, str: 'page fault' },
};

/**
 * Whoever runs a CPU says, while it does, whether a trap the die chain stopped may go on inside the
 * CPU's run loop: true when all it would do before running the CPU again is nothing (see
 * {@link TrapRouter.runBy}).
 */
export type MayResume = (cpu: number) => boolean;

/** What an oops is about. */
export interface OopsInfo {
  readonly vector: number;
  readonly errorCode: number;
  /** The faulting address of a #PF, when the CPU reported one. */
  readonly cr2?: bigint | undefined;
  readonly reason?: string;
}

/** What the {@link TrapRouter} needs of the kernel around it. */
export interface TrapRouterHost {
  readonly cpus: readonly Cpu[];
  /** `struct pt_regs` view of each CPU, handed to die notifiers. */
  readonly regs: readonly PtRegs[];
  readonly dieChain: Pick<DieChain<PtRegs>, 'notify'>;
  /** Faulting instruction → fixup. */
  readonly exTable: ReadonlyMap<bigint, bigint>;
  /** The task running on each CPU. */
  readonly current: readonly (Task | undefined)[];
  readonly events: Pick<MachineEvents, 'diesObserved' | 'emitDie' | 'emitMachine' | 'log'>;
  readonly clock: Clock;
  /** What an oops report names: symbols and the release. */
  readonly oopsReport: { readonly kallsyms: Kallsyms; readonly release: string };
  readonly panic: Pick<KernelPanic, 'panic' | 'onOops'>;
  /** Sends the current task of `cpu` to `do_exit(signo)`. */
  killCurrent(cpu: number, signo: number): void;
}

/**
 * The trap handlers: `do_int3`, `do_debug`, `do_page_fault`, `do_general_protection`,
 * `do_divide_error`, `do_invalid_op`. Each first offers the trap to the die notifier chain (kprobes'
 * notifier is there); if no notifier stops it, the kernel's own handling follows: exception-table
 * fixups for kernel faults on user memory, signals for user-mode faults, an oops otherwise.
 *
 * @see arch/x86/kernel/traps.c do_int3(), do_debug(), do_general_protection(); arch/x86/mm/fault.c
 */
export class TrapRouter {
  private oopsCount = 0;
  private readonly args: DieArgs<PtRegs>[];
  /** Per CPU: what its runner says of traps resumed in place ({@link runBy}); null: never. */
  private readonly mayResume: (MayResume | null)[];
  /**
   * Per CPU: the retired count at which the trap hook offered a trap to the die chain and then let
   * the run return it (-1: none), its vector, and whether the chain stopped it: {@link handle}
   * finishes that trap without notifying twice.
   */
  private readonly offeredAt: number[];
  private readonly offeredVector: number[];
  private readonly offeredStop: boolean[];

  constructor(private readonly host: TrapRouterHost) {
    this.args = host.regs.map((regs, cpu) => ({ val: DieVal.TRAP, regs, str: '', err: 0, trapnr: 0, cpu }));
    this.mayResume = host.cpus.map(() => null);
    this.offeredAt = host.cpus.map(() => -1);
    this.offeredVector = host.cpus.map(() => -1);
    this.offeredStop = host.cpus.map(() => false);
    for (const c of host.cpus) c.trapHook = (cpu, vector) => this.trapInPlace(cpu, vector);
  }

  /**
   * Says who runs `cpu` until the next call: while `mayResume` is set, a #BP or single-step #DB that
   * the die chain stops (a kprobe's int3 and its single-step) goes on inside the CPU's run loop when
   * `mayResume(cpu)` holds after the chain ran, instead of returning to the runner, which would only
   * have handled it here and run the CPU again. Null: every trap returns. Returns the previous
   * setting, for the runner to put back when its run returns (runs nest: a probe handler's guest call).
   */
  runBy(cpu: number, mayResume: MayResume | null): MayResume | null {
    const previous = this.mayResume[cpu];
    this.mayResume[cpu] = mayResume;
    return previous;
  }

  /**
   * The CPUs' trap hook: offers a #BP or single-step #DB to the die chain in place, as {@link handle}
   * would (the same notifiers, events and order). True (go on in place) when the chain stopped it and
   * the runner allows; otherwise the run returns the trap, and {@link handle} finishes it from here.
   */
  private trapInPlace(c: Cpu, vector: number): boolean {
    const cpu = c.id;
    const mayResume = this.mayResume[cpu];
    if (mayResume === null) {
      this.offeredAt[cpu] = -1;
      return false;
    }
    const stopped = this.notifyDie(cpu, vector, 0);
    if (stopped && mayResume(cpu)) return true;
    this.offeredAt[cpu] = c.retired;
    this.offeredVector[cpu] = vector;
    this.offeredStop[cpu] = stopped;
    return false;
  }

  /** `notify_die` for an exception of `cpu`, and its `die:notified` event: true when a notifier stopped it. */
  private notifyDie(cpu: number, vector: number, err: number): boolean {
    const { cpus, events } = this.host;
    const die = DIE_FOR_VECTOR[vector];
    const val = die === undefined ? DieVal.TRAP : die.val;
    const args = this.args[cpu];
    args.val = val;
    args.str = die === undefined ? `trap ${vector}` : die.str;
    args.err = err;
    args.trapnr = vector;
    // The trapping rip, for the die event: read only when someone listens (a BigInt per trap otherwise).
    const rip = events.diesObserved ? cpus[cpu].rip : 0n;
    const stopped = this.host.dieChain.notify(args) === NotifyResult.STOP;
    if (events.diesObserved) events.emitDie(cpu, val, vector, rip, stopped);
    return stopped;
  }

  /** The router's state: how many oopses there were (the next report's `[#n]`). */
  save(): number {
    return this.oopsCount;
  }

  /** Puts back the oops count of a {@link save}. */
  restore(oopsCount: number): void {
    this.oopsCount = oopsCount;
  }

  /**
   * Handles an exception of `cpu`. Returns false when it ended in an oops (the caller decides what
   * that means: a running task was already sent to `do_exit`; a host-to-guest call must unwind).
   */
  handle(cpu: number, r: ExceptionResult, nested = false): boolean {
    const c = this.host.cpus[cpu];
    const vector = r.vector;
    const err = r.errorCode ?? 0;
    // A trap the hook already offered to the chain (nothing ran since: the same retired count) is not
    // offered again.
    let stopped: boolean;
    if (this.offeredAt[cpu] === c.retired && this.offeredVector[cpu] === vector) {
      this.offeredAt[cpu] = -1;
      stopped = this.offeredStop[cpu];
    } else stopped = this.notifyDie(cpu, vector, err);
    if (stopped) return true;

    const user = c.cpl === 3;
    switch (vector) {
      case ExceptionVector.Debug:
        if (user) return this.signal(cpu, 'SIGTRAP', r);
        // A single-step nobody claims: stop stepping, as do_debug clears TF for kernel mode.
        c.rflags &= ~Rflags.TF;
        return true;
      case ExceptionVector.Breakpoint:
        return user ? this.signal(cpu, 'SIGTRAP', r) : this.oops(cpu, { vector, errorCode: err }, nested);
      case ExceptionVector.PageFault:
      case ExceptionVector.GeneralProtection: {
        if (user) return this.signal(cpu, 'SIGSEGV', r);
        const fixup = this.host.exTable.get(c.rip);
        if (fixup !== undefined) {
          c.rip = fixup;
          return true;
        }
        return this.oops(cpu, { vector, errorCode: err, cr2: r.cr2 }, nested);
      }
      case ExceptionVector.DivideError:
        return user ? this.signal(cpu, 'SIGFPE', r) : this.oops(cpu, { vector, errorCode: err }, nested);
      case ExceptionVector.InvalidOpcode:
        return user ? this.signal(cpu, 'SIGILL', r) : this.oops(cpu, { vector, errorCode: err }, nested);
      default:
        return this.oops(cpu, { vector, errorCode: err }, nested);
    }
  }

  /**
   * Reports a kernel oops and disposes of the task: it dies through `do_exit(SIGKILL)` on a reset
   * kernel stack (or the machine panics with `panic_on_oops`, or when no task is running).
   *
   * @see arch/x86/kernel/dumpstack.c oops_end(), make_task_dead()
   */
  oops(cpu: number, info: OopsInfo, nested = false): boolean {
    const { events, panic } = this.host;
    const c = this.host.cpus[cpu];
    const task = this.host.current[cpu];
    this.oopsCount++;
    const stackHigh = task ? task.kernelStack + BigInt(KernelLayout.THREAD_SIZE) : c.getReg(Reg.RSP) + 4096n;
    const stackLow = task ? task.kernelStack : c.getReg(Reg.RSP);
    if (info.reason) events.log(cpu, 0, `BUG: ${info.reason}`);
    for (const line of oopsReport({
      cpu: c,
      cpuIndex: cpu,
      vector: info.vector,
      errorCode: info.errorCode,
      cr2: info.cr2,
      pid: task?.pid ?? 0,
      comm: task?.comm ?? 'swapper',
      ksyms: this.host.oopsReport.kallsyms,
      stackLow,
      stackHigh,
      oopsCount: this.oopsCount,
      release: this.host.oopsReport.release,
    })) {
      events.log(cpu, 4, line);
    }
    events.emitMachine({
      type: 'machine:oops',
      at: this.host.clock.clock(cpu),
      cpu,
      pid: task?.pid ?? 0,
      rip: c.rip,
      reason: info.reason ?? `vector ${info.vector}`,
    });
    if (panic.onOops) panic.panic(cpu, 'Fatal exception');
    else if (!nested) {
      if (task) this.host.killCurrent(cpu, Signal.SIGKILL);
      else panic.panic(cpu, 'Attempted to kill the idle task!');
    }
    return false;
  }

  /** A user-mode fault: log as `show_signal_msg` does for SIGSEGV, then kill the task. */
  private signal(cpu: number, name: keyof typeof Signal, r: ExceptionResult): boolean {
    const c = this.host.cpus[cpu];
    const task = this.host.current[cpu];
    if (name === 'SIGSEGV' && task) {
      const at = (r.cr2 ?? 0n).toString(16);
      const hex16 = (v: bigint) => v.toString(16).padStart(16, '0');
      this.host.events.log(
        cpu,
        6,
        `${task.comm}[${task.pid}]: segfault at ${at} ip ${hex16(c.rip)} sp ${hex16(c.getReg(Reg.RSP))} error ${(r.errorCode ?? 0).toString(16)}`,
      );
    }
    this.host.killCurrent(cpu, Signal[name]);
    return true;
  }
}
