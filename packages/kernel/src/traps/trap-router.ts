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

const DIE_FOR_VECTOR: Record<number, [DieValue, string]> = {
  [ExceptionVector.DivideError]: [DieVal.TRAP, 'divide error'],
  [ExceptionVector.Debug]: [DieVal.DEBUG, 'debug'],
  [ExceptionVector.Breakpoint]: [DieVal.INT3, 'int3'],
  [ExceptionVector.InvalidOpcode]: [DieVal.TRAP, 'invalid opcode'],
  [ExceptionVector.GeneralProtection]: [DieVal.GPF, 'general protection fault'],
  [ExceptionVector.PageFault]: [DieVal.PAGE_FAULT, 'page fault'],
};

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

  constructor(private readonly host: TrapRouterHost) {
    this.args = host.regs.map((regs, cpu) => ({ val: DieVal.TRAP, regs, str: '', err: 0, trapnr: 0, cpu }));
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
    const { cpus, events } = this.host;
    const c = cpus[cpu];
    const vector = r.vector;
    const err = r.errorCode ?? 0;
    const [val, str] = DIE_FOR_VECTOR[vector] ?? [DieVal.TRAP, `trap ${vector}`];
    const args = this.args[cpu];
    args.val = val;
    args.str = str;
    args.err = err;
    args.trapnr = vector;
    // The trapping rip, for the die event: read only when someone listens (a BigInt per trap otherwise).
    const rip = events.diesObserved ? c.rip : 0n;
    const stopped = this.host.dieChain.notify(args) === NotifyResult.STOP;
    if (events.diesObserved) events.emitDie(cpu, val, vector, rip, stopped);
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
