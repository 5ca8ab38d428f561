import { type Cpu, ExceptionVector } from '@int3/cpu';
import type { Scheduler } from '../sched/scheduler.js';
import type { Task } from '../sched/task.js';
import { NS_PER_INSTRUCTION, TICK_NS } from '../time/virtual-time.js';
import type { MayResume, TrapRouter } from '../traps/trap-router.js';
import type { CpuClocks } from './cpu-clocks.js';
import type { CpuRunner } from './cpu-stepper.js';
import type { GateDispatcher } from './gate-dispatcher.js';
import type { KernelPanic } from './kernel-panic.js';

/** What a machine's `run` stopped on. */
export type RunOutcome =
  | { readonly reason: 'done' }
  | { readonly reason: 'idle' }
  | { readonly reason: 'time'; readonly at: number }
  | { readonly reason: 'deadlock'; readonly blocked: readonly number[] }
  | { readonly reason: 'panic'; readonly message: string }
  /** `stopAfter` held: the machine stopped between two CPU runs, possibly mid-round. */
  | { readonly reason: 'stopped' };

/** How far a machine's `run` goes. */
export interface RunOptions {
  /** Checked at every round boundary: stop when it holds. */
  readonly until?: (() => boolean) | undefined;
  /**
   * Stop at the first round boundary at or past this virtual time of CPU 0. With nothing to run, time
   * still passes up to it, tick by tick, each tick a round boundary (a periodic-tick kernel's idle).
   */
  readonly deadlineNs?: number | undefined;
  /**
   * Checked after every CPU run and its handling (a gate, a trap, the end of a budget): stop there when
   * it holds, even mid-slice. The next `run` or `runRound` finishes the slice and the round first, so
   * stopping changes nothing of what happens next.
   */
  readonly stopAfter?: (() => boolean) | undefined;
  /** Called at every round boundary before `until` is checked: where snapshots may be taken. */
  readonly onRound?: () => void;
}

/** The run loop's state as plain, immutable data (for machine snapshots). */
export interface RunLoopState {
  readonly offsetNs: readonly number[];
  readonly nextTick: readonly number[];
  readonly sliceEnd: readonly number[];
  readonly resumeCpu: number | undefined;
}

/** What the {@link RunLoop} needs of the kernel around it. */
export interface RunLoopHost {
  readonly cpus: readonly Cpu[];
  /** Virtual instructions a CPU runs before the next CPU's turn. */
  readonly quantum: number;
  /** The CPUs' clocks: the loop advances their idle offsets. */
  readonly clocks: CpuClocks;
  readonly runner: CpuRunner;
  readonly sched: Pick<
    Scheduler,
    | 'current'
    | 'runQueues'
    | 'needResched'
    | 'switchIn'
    | 'switchOut'
    | 'wakeSleepers'
    | 'anyRunnable'
    | 'nextWakeup'
    | 'blockedForever'
  >;
  readonly gates: Pick<GateDispatcher, 'handle'>;
  readonly traps: Pick<TrapRouter, 'handle' | 'oops' | 'runBy'>;
  readonly panic: Pick<KernelPanic, 'message'>;
}

/**
 * The deterministic run loop: rounds in which every CPU in turn runs one quantum of virtual
 * instructions, a timer tick per CPU every {@link TICK_NS}, idle time fast-forwarded in whole quanta.
 * It owns each CPU's clock offset (time spent idle) and, when a stop interrupted a round, where the
 * round resumes.
 *
 * @see kernel/sched/core.c scheduler_tick() (the tick's role), not its policy
 */
export class RunLoop {
  /** Virtual ns each CPU spent idle: added to its virtual instructions to make its clock. */
  private readonly offsetNs: number[];
  private readonly nextTick: number[];
  /** End (virtual ns) of each CPU's slice when a stop interrupted it, else -1. */
  private readonly sliceEnd: number[];
  /** The CPU whose slice a stop interrupted: the round resumes there. Undefined at a round boundary. */
  private resumeCpu: number | undefined;
  private running = false;
  private readonly boundaryHooks: (() => void)[] = [];
  /** For each boundary hook: true when it has nothing to do while every CPU idles (absent: never). */
  private readonly hookIdle = new Map<() => void, () => boolean>();
  /** Per CPU: the task and the idle offset its current CPU run started with (see {@link mayResume}). */
  private readonly runTask: (Task | undefined)[];
  private readonly runOffset: number[];
  /**
   * Whether a trap the die chain stopped during a slice's CPU run may go on in place (see
   * `TrapRouter.runBy`): when all {@link runSlice} would do before running the CPU again is nothing —
   * no panic, the same task and idle offset (so the same budget end), no sleeper due (so
   * `wakeSleepers` would wake none). Slices run under `stopAfter` never resume in place: it is asked
   * after every CPU run, as before.
   */
  private readonly mayResume: MayResume = (cpu) => {
    const m = this.m;
    if (m.panic.message || m.sched.current[cpu] !== this.runTask[cpu] || this.offsetNs[cpu] !== this.runOffset[cpu]) {
      return false;
    }
    const wake = m.sched.nextWakeup();
    return wake === undefined || wake > m.clocks.clock(cpu);
  };

  constructor(private readonly m: RunLoopHost) {
    const n = m.cpus.length;
    this.offsetNs = m.clocks.offsetNs;
    this.nextTick = new Array(n).fill(TICK_NS);
    this.sliceEnd = new Array(n).fill(-1);
    this.runTask = new Array(n).fill(undefined);
    this.runOffset = new Array(n).fill(0);
  }

  /** Runs round after round until `until()` holds, nothing is left to run, the deadline passes, or a panic. */
  run(options: RunOptions): RunOutcome {
    const m = this.m;
    for (;;) {
      if (m.panic.message) return { reason: 'panic', message: m.panic.message };
      // A round a stop interrupted is finished before anything is checked, as if it never stopped.
      if (this.resumeCpu === undefined) {
        options.onRound?.();
        if (options.until?.()) return { reason: 'done' };
        if (options.deadlineNs !== undefined && m.clocks.clock(0) >= options.deadlineNs)
          return { reason: 'time', at: m.clocks.clock(0) };
        if (!m.sched.anyRunnable()) {
          const wake = m.sched.nextWakeup();
          if (wake === undefined) {
            const blocked = m.sched.blockedForever();
            if (blocked.length > 0) return { reason: 'deadlock', blocked: blocked.map((t) => t.pid) };
            if (options.deadlineNs === undefined) return { reason: 'idle' };
          }
          // Idle until a wake-up, or (asked to run until a time) tick by tick to the deadline, so the
          // round-boundary work (delayed work such as kprobes' optimizer) runs while the CPUs idle.
          // With no such work pending, the ticks up to the last one are skipped at once.
          if (wake === undefined && options.until === undefined && this.hooksIdle())
            this.skipIdleTicks(options.deadlineNs!);
          this.fastForward(wake ?? Math.min(options.deadlineNs!, m.clocks.clock(0) + TICK_NS));
        }
      }
      if (this.runRound(options.stopAfter)) return { reason: 'stopped' };
    }
  }

  /**
   * Runs rounds until `cpu`'s clock reaches `untilNs`, as {@link run} does (tasks run, sleepers wake,
   * the round-boundary work runs); when nothing can run before then (every task asleep past it, or
   * blocked for good), the CPUs idle in whole quanta. For a host-to-guest call that sleeps (a module's
   * init in `msleep`). False, running nothing, inside a round.
   */
  runUntilClock(cpu: number, untilNs: number): boolean {
    if (this.running) return false;
    const clocks = this.m.clocks;
    for (;;) {
      const left = untilNs - clocks.clock(cpu);
      if (left <= 0 || this.m.panic.message) return true;
      const r = this.run({ until: () => clocks.clock(cpu) >= untilNs, deadlineNs: clocks.clock(0) + left });
      if (r.reason === 'idle' || r.reason === 'deadlock') {
        const q = this.m.quantum * NS_PER_INSTRUCTION;
        const rounds = Math.ceil((untilNs - clocks.clock(cpu)) / q);
        for (let c = 0; c < this.offsetNs.length; c++) {
          this.offsetNs[c] += rounds * q;
          this.catchUpTick(c);
        }
      }
    }
  }

  /**
   * One round: every CPU in order runs one quantum (the rest of the round, when a stop interrupted
   * it). Returns true when `stopAfter` stopped it before its end.
   */
  runRound(stopAfter?: () => boolean): boolean {
    this.running = true;
    try {
      for (let c = this.resumeCpu ?? 0; c < this.m.cpus.length && !this.m.panic.message; c++) {
        this.resumeCpu = undefined;
        if (this.runSlice(c, stopAfter)) {
          this.resumeCpu = c;
          return true;
        }
      }
      this.resumeCpu = undefined;
    } finally {
      this.running = false;
    }
    // The round is complete: every CPU ran its slice since the last boundary.
    for (let i = 0; i < this.boundaryHooks.length && !this.m.panic.message; i++) this.boundaryHooks[i]();
    return false;
  }

  /**
   * Calls `fn` at every round boundary, in registration order; returns the unregister handle. `idle`,
   * when given, tells whether the hook has nothing to do while every CPU idles (then idle time up to a
   * deadline is skipped in one step).
   */
  onRoundBoundary(fn: () => void, idle?: () => boolean): () => void {
    this.boundaryHooks.push(fn);
    if (idle) this.hookIdle.set(fn, idle);
    return () => {
      const i = this.boundaryHooks.indexOf(fn);
      if (i >= 0) this.boundaryHooks.splice(i, 1);
      this.hookIdle.delete(fn);
    };
  }

  /** True when no boundary hook has work while the CPUs idle. */
  private hooksIdle(): boolean {
    for (const fn of this.boundaryHooks) if (!this.hookIdle.get(fn)?.()) return false;
    return true;
  }

  /**
   * Passes idle time up to `deadline` as the tick-by-tick idle loop of {@link run} would, in one step:
   * that loop advances every CPU by `s` = (⌊TICK_NS / q⌋ + 1)·q per round while more than a tick is
   * left (q: a quantum of virtual time), and nothing else changes while no task runs and no hook has
   * work. The last, shorter step is left to the loop. Clocks, ticks and hashes are those of the loop.
   */
  private skipIdleTicks(deadline: number): void {
    const q = this.m.quantum * NS_PER_INSTRUCTION;
    const step = (Math.floor(TICK_NS / q) + 1) * q;
    const left = deadline - this.m.clocks.clock(0);
    const steps = Math.ceil((left - TICK_NS) / step);
    if (!(steps > 0)) return;
    for (let c = 0; c < this.offsetNs.length; c++) {
      this.offsetNs[c] += steps * step;
      this.catchUpTick(c);
    }
  }

  /** Moves `cpu`'s next tick past its clock: the first tick after now (ticks that passed idle are lost). */
  private catchUpTick(cpu: number): void {
    const now = this.m.clocks.clock(cpu);
    if (this.nextTick[cpu] <= now)
      this.nextTick[cpu] += (Math.floor((now - this.nextTick[cpu]) / TICK_NS) + 1) * TICK_NS;
  }

  /** True while a round runs. */
  get inRound(): boolean {
    return this.running;
  }

  /** The loop's state, copied. */
  save(): RunLoopState {
    return Object.freeze({
      offsetNs: Object.freeze([...this.offsetNs]),
      nextTick: Object.freeze([...this.nextTick]),
      sliceEnd: Object.freeze([...this.sliceEnd]),
      resumeCpu: this.resumeCpu,
    });
  }

  /** Puts back a state from {@link save}. */
  restore(s: RunLoopState): void {
    for (let c = 0; c < this.offsetNs.length; c++) {
      this.offsetNs[c] = s.offsetNs[c];
      this.nextTick[c] = s.nextTick[c];
      this.sliceEnd[c] = s.sliceEnd[c];
    }
    this.resumeCpu = s.resumeCpu;
  }

  /** Runs `cpu`'s slice (or the rest of one a stop interrupted); true when `stopAfter` stopped it. */
  private runSlice(cpu: number, stopAfter: (() => boolean) | undefined): boolean {
    const m = this.m;
    const c = m.cpus[cpu];
    const resumed = this.sliceEnd[cpu];
    const end = resumed >= 0 ? resumed : m.clocks.clock(cpu) + m.quantum * NS_PER_INSTRUCTION;
    this.sliceEnd[cpu] = -1;
    const previous = m.traps.runBy(cpu, stopAfter === undefined ? this.mayResume : null);
    try {
      if (this.runToSliceEnd(cpu, end, stopAfter)) return true;
    } finally {
      m.traps.runBy(cpu, previous);
    }
    // The timer tick: time slices end at a tick; the switch waits until the task is in user mode.
    if (m.clocks.clock(cpu) >= this.nextTick[cpu]) {
      this.catchUpTick(cpu);
      if (m.sched.runQueues.length(cpu) > 0) m.sched.needResched[cpu] = true;
    }
    if (m.sched.needResched[cpu] && m.sched.current[cpu] && c.cpl === 3) m.sched.switchOut(cpu);
    return false;
  }

  /** The CPU runs of a slice up to `end` (virtual ns); true when `stopAfter` stopped it. */
  private runToSliceEnd(cpu: number, end: number, stopAfter: (() => boolean) | undefined): boolean {
    const m = this.m;
    for (;;) {
      m.sched.wakeSleepers(cpu, m.clocks.clock(cpu));
      const now = m.clocks.clock(cpu);
      if (now >= end || m.panic.message) break;
      const task = m.sched.current[cpu] ?? m.sched.switchIn(cpu);
      if (!task) {
        this.offsetNs[cpu] += end - now;
        break;
      }
      this.runTask[cpu] = task;
      this.runOffset[cpu] = this.offsetNs[cpu];
      const r = m.runner.run(cpu, Math.ceil((end - now) / NS_PER_INSTRUCTION));
      switch (r.reason) {
        case 'budget':
        case 'interrupt':
          break;
        case 'gate':
          m.gates.handle(cpu);
          break;
        case 'exception':
          m.traps.handle(cpu, r);
          break;
        case 'hlt':
          m.traps.oops(cpu, {
            vector: ExceptionVector.GeneralProtection,
            errorCode: 0,
            reason: 'hlt executed by a task',
          });
          break;
      }
      if (stopAfter?.()) {
        this.sliceEnd[cpu] = end;
        return true;
      }
    }
    return false;
  }

  private fastForward(to: number): void {
    // Every CPU idles the same whole number of quanta, so they stay in lockstep.
    const q = this.m.quantum * NS_PER_INSTRUCTION;
    const rounds = Math.floor((to - this.m.clocks.clock(0)) / q);
    if (rounds <= 0) return;
    for (let c = 0; c < this.offsetNs.length; c++) this.offsetNs[c] += rounds * q;
  }
}
