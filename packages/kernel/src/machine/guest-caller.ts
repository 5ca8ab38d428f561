import { type AddressSpace, type Cpu, hi32, lo32, Reg, type RunResult, Selector } from '@int3/cpu';
import { SYSV_ARG_REGS } from '../arch/x86/calling-convention.js';
import type { Kallsyms } from '../kallsyms/kallsyms.js';
import { KernelError } from '../kernel-error.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import { PcpuHot } from '../sched/scheduler.js';
import type { Task } from '../sched/task.js';
import { loadTaskRegs, saveTaskRegs } from '../sched/task-regs.js';
import type { MayResume, TrapRouter } from '../traps/trap-router.js';
import type { CpuRunner } from './cpu-stepper.js';
import type { GateDispatcher } from './gate-dispatcher.js';
import type { HostCalls } from './host-calls.js';
import type { KernelPanic } from './kernel-panic.js';

/** Options of a host-to-guest call. */
export interface GuestCallOptions {
  /** Top of the stack to run on; default: below the CPU's current stack pointer. */
  readonly stackTop?: bigint;
  /** `current` during the call (a guest `task_struct`); default: unchanged. */
  readonly asTask?: bigint;
  /** The call does work on behalf of instrumentation (a probe handler): it costs no virtual time. */
  readonly instrumentation?: boolean;
  /**
   * The call runs in process context and may sleep, as a module's init does (Linux runs it in
   * insmod's process): a timed sleep inside it (`msleep`, `schedule_timeout`) lets the machine run
   * until the sleep is over, other tasks included, then the call goes on. Without it a call that
   * would block is an error.
   */
  readonly maySleep?: boolean;
}

/** A guest function died (oops) while the host was calling it. */
export class GuestCallError extends KernelError {
  constructor(message: string) {
    super('PANIC', message);
    this.name = 'GuestCallError';
  }
}

/** What the {@link GuestCaller} needs of the kernel around it. */
export interface GuestCallerHost {
  readonly cpus: readonly Cpu[];
  /** Address of each CPU's `pcpu_hot`. */
  readonly pcpu: readonly bigint[];
  /** The kernel address space (the per-CPU areas live there). */
  readonly space: AddressSpace;
  /** Top of each CPU's stack for calls made outside any task. */
  readonly hostStackTop: readonly bigint[];
  /** The task running on each CPU. */
  readonly current: readonly (Task | undefined)[];
  readonly runner: CpuRunner;
  readonly hostCalls: Pick<HostCalls, 'define' | 'lookupHalves'>;
  readonly gates: Pick<GateDispatcher, 'call' | 'complete'>;
  /** Routes an exception raised inside the call; false when it oopsed. */
  trapInCall(cpu: number, r: Extract<RunResult, { reason: 'exception' }>): boolean;
  /** Says that the call runs the CPU, and when a trap may go on in place (see `TrapRouter.runBy`). */
  readonly traps: Pick<TrapRouter, 'runBy'>;
  readonly panic: Pick<KernelPanic, 'message'>;
  /** Names functions in messages. */
  readonly kallsyms: Pick<Kallsyms, 'format'>;
  /**
   * Runs the machine until `cpu`'s clock reaches `untilNs` (a sleeping call's wake-up); false when
   * it cannot run now (inside a round: the call was made from a probe handler or a host service).
   */
  runUntil(cpu: number, untilNs: number): boolean;
}

/**
 * Host-to-guest calls: the host builds a frame whose return address is a gate, runs the CPU until it
 * reaches that gate, and restores the CPU as it was. Gates reached on the way run their services
 * (they must not block); exceptions go through the trap router like any other.
 */
export class GuestCaller {
  private readonly returnGate: bigint;
  /** The return gate's int32 halves, compared with the CPU's rip halves at every gate exit. */
  private readonly returnLo: number;
  private readonly returnHi: number;
  private depth = 0;
  /** Calls asleep (their CPU given back to the machine meanwhile). */
  private asleep = 0;
  /** Per CPU: the stack pointer of a call asleep there, which later calls on the host stack stay below. */
  private readonly sleepingSp: (bigint | undefined)[];
  /**
   * Whether a trap the die chain stopped inside a call may go on in place: unless the kernel
   * panicked, all the call's loop would do is run the CPU again (its instruction limit is the run's
   * hard cap, which stays).
   */
  private readonly mayResume: MayResume = () => !this.host.panic.message;

  constructor(
    private readonly host: GuestCallerHost,
    private readonly limit: number,
  ) {
    this.returnGate = host.hostCalls.define('int3_return_gate', () => {
      throw new KernelError('EINVAL', 'the return gate was reached outside a host-to-guest call');
    });
    this.returnLo = lo32(this.returnGate);
    this.returnHi = hi32(this.returnGate);
    this.sleepingSp = host.cpus.map(() => undefined);
  }

  /** Calls `fn(args…)` on `cpu` with the SysV ABI and returns rax. */
  call(cpu: number, fn: bigint, args: readonly bigint[], options: GuestCallOptions = {}): bigint {
    const m = this.host;
    const c = m.cpus[cpu];
    let saved = saveTaskRegs(c);
    const savedCpl = c.cpl;
    const pcpu = m.pcpu[cpu];
    let savedCurrent = m.space.readU64(pcpu + BigInt(PcpuHot.currentTask));
    const wasInstrumentation = c.instrumentationMode;
    if (options.instrumentation) c.instrumentationMode = true;
    if (options.asTask !== undefined) m.space.writeU64(pcpu + BigInt(PcpuHot.currentTask), options.asTask);
    if (savedCpl === 3) {
      c.kernelGsBase = c.gsBase;
    }
    c.cs = Selector.KERNEL_CS;
    c.ss = Selector.KERNEL_DS;
    c.gsBase = pcpu;
    c.rflags = 0x2;
    let sp = (options.stackTop ?? this.defaultStack(cpu, savedCpl)) & ~0xfn;
    const n = SYSV_ARG_REGS.length;
    if (args.length > n && (args.length - n) % 2 === 1) sp -= 8n;
    for (let i = args.length - 1; i >= n; i--) {
      sp -= 8n;
      c.addressSpace.writeU64(sp, BigInt.asUintN(64, args[i]));
    }
    sp -= 8n;
    c.addressSpace.writeU64(sp, this.returnGate);
    for (let i = 0; i < Math.min(n, args.length); i++) c.setReg(SYSV_ARG_REGS[i], BigInt.asUintN(64, args[i]));
    c.setReg(Reg.RSP, sp);
    c.rip = fn;
    const expectedSp = sp + 8n;
    let start = c.retired;
    this.depth++;
    const previousRunner = m.traps.runBy(cpu, this.mayResume);
    try {
      for (;;) {
        if (c.retired - start > this.limit) {
          throw new KernelError(
            'RUNAWAY',
            `${m.kallsyms.format(fn)} ran more than ${this.limit} instructions without returning (at ${m.kallsyms.format(c.rip)})`,
          );
        }
        // The limit counts every instruction: a handler in instrumentation mode costs no virtual time.
        const r = m.runner.run(cpu, Number.POSITIVE_INFINITY, this.limit - (c.retired - start) + 1);
        if (r.reason === 'gate') {
          if (c.ripLow === this.returnLo && c.ripHigh === this.returnHi && c.getReg(Reg.RSP) === expectedSp) {
            return c.getReg(Reg.RAX);
          }
          const gate = m.hostCalls.lookupHalves(c.ripLow, c.ripHigh);
          if (!gate)
            throw new GuestCallError(`${m.kallsyms.format(fn)} called an unbound host gate at 0x${c.rip.toString(16)}`);
          const result = m.gates.call(cpu, gate);
          if (
            options.maySleep &&
            typeof result === 'object' &&
            'block' in result &&
            result.block.until !== undefined &&
            this.depth === 1
          ) {
            // Step 1: put back what the CPU ran before the call (its task, or nothing), keeping the
            // call's registers; step 2: run the machine until the wake-up; step 3: take the CPU
            // again, whatever now runs there, and go on with the call. Other tasks' instructions
            // do not count against the call's limit.
            const call = saveTaskRegs(c);
            const callCurrent = m.space.readU64(pcpu + BigInt(PcpuHot.currentTask));
            this.sleepingSp[cpu] = c.getReg(Reg.RSP);
            loadTaskRegs(c, saved);
            m.space.writeU64(pcpu + BigInt(PcpuHot.currentTask), savedCurrent);
            c.instrumentationMode = wasInstrumentation;
            const before = c.retired;
            this.asleep++;
            let ran: boolean;
            try {
              ran = m.runUntil(cpu, result.block.until);
            } finally {
              this.asleep--;
              this.sleepingSp[cpu] = undefined;
              saved = saveTaskRegs(c);
              savedCurrent = m.space.readU64(pcpu + BigInt(PcpuHot.currentTask));
              m.space.writeU64(pcpu + BigInt(PcpuHot.currentTask), callCurrent);
              loadTaskRegs(c, call);
              if (options.instrumentation) c.instrumentationMode = true;
              start += c.retired - before;
            }
            if (!ran) {
              throw new KernelError('EINVAL', `${m.kallsyms.format(fn)} would sleep while the machine runs a round`);
            }
            m.gates.complete(cpu, result.block.resume());
          } else if (typeof result === 'object' && !('jumped' in result)) {
            throw new KernelError(
              'EINVAL',
              `host_${gate.name} would block or exit inside a host-to-guest call to ${m.kallsyms.format(fn)}`,
            );
          } else {
            m.gates.complete(cpu, result);
          }
        } else if (r.reason === 'exception') {
          if (!m.trapInCall(cpu, r)) throw new GuestCallError(`${m.kallsyms.format(fn)} oopsed (see dmesg)`);
        } else if (r.reason === 'hlt') {
          throw new GuestCallError(`${m.kallsyms.format(fn)} executed hlt`);
        }
        if (m.panic.message) {
          throw new GuestCallError(`kernel panic during ${m.kallsyms.format(fn)}: ${m.panic.message}`);
        }
      }
    } finally {
      m.traps.runBy(cpu, previousRunner);
      this.depth--;
      loadTaskRegs(c, saved);
      m.space.writeU64(pcpu + BigInt(PcpuHot.currentTask), savedCurrent);
      c.instrumentationMode = wasInstrumentation;
    }
  }

  /**
   * Where a call runs when the caller names no stack: below the stack pointer when the CPU is already
   * on a kernel stack (a probe handler called from a trap), else on the CPU's own host-call stack.
   */
  private defaultStack(cpu: number, cpl: number): bigint {
    const rsp = this.host.cpus[cpu].getReg(Reg.RSP);
    const task = this.host.current[cpu];
    const onTaskStack =
      task !== undefined && rsp > task.kernelStack && rsp <= task.kernelStack + BigInt(KernelLayout.THREAD_SIZE);
    const host = this.host.hostStackTop[cpu];
    const onHostStack = rsp > host - BigInt(KernelLayout.THREAD_SIZE) && rsp <= host;
    if (cpl === 0 && (onTaskStack || onHostStack)) return rsp - 256n;
    const sleeping = this.sleepingSp[cpu];
    return sleeping === undefined ? host : sleeping - 256n;
  }

  /** True while a host-to-guest call runs on a CPU (a call asleep does not). */
  get active(): boolean {
    return this.depth > this.asleep;
  }

  /** True while a host-to-guest call sleeps (the machine runs meanwhile; nothing may snapshot it). */
  get sleeping(): boolean {
    return this.asleep > 0;
  }
}
