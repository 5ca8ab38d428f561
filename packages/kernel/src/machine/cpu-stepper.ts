import type { Cpu, RunResult } from '@int3/cpu';

/** What a CPU is asked to run: where the step hook (an oracle for tests) slows it to one instruction. */
export interface CpuRunner {
  /** Runs `cpu` up to `budget` virtual instructions (and `limit` in all), or one under the step hook. */
  run(cpu: number, budget: number, limit?: number): RunResult;
}

/**
 * What the step hook sees before each instruction. Returning true holds the CPU there: the run returns
 * (reason `budget`) with nothing executed, so the run loop's `stopAfter` can stop the machine right
 * before that instruction (a debugger's breakpoint); the hook must then let the same instruction run
 * when it is asked again, and never hold inside a host-to-guest call (nothing stops there).
 */
// biome-ignore lint/suspicious/noConfusingVoidType: the oracle hooks of tests return nothing, and may go on doing so
export type StepHook = (cpu: number, rip: bigint) => boolean | undefined | void;

/**
 * Runs CPUs for the run loop and for host-to-guest calls. When {@link hook} is set, CPUs run one
 * instruction at a time and the hook sees the address of each before it runs: slow by design.
 */
export class CpuStepper implements CpuRunner {
  hook: StepHook | undefined;
  /** The debug stops the CPUs share, and what is asked at each ({@link setStops}). */
  private readonly stops = new Set<bigint>();
  private stopHook: StepHook | undefined;

  constructor(
    private readonly cpus: readonly Cpu[],
    /** Drops the decoded code at an address in every address space that maps it. */
    private readonly dropCode: (address: bigint) => void = () => {},
  ) {}

  /**
   * Runs the CPUs at full speed but stops them before the instructions at `addresses` (a debugger's
   * breakpoints): `hook` is asked there as the step hook is at every instruction, and holds the CPU
   * (the run returns, nothing executed) or lets that instruction run. No address: no stops.
   */
  setStops(addresses: readonly bigint[], hook: StepHook | undefined): void {
    const next = new Set(addresses);
    for (const a of this.stops) if (!next.has(a)) this.dropCode(a);
    for (const a of next) if (!this.stops.has(a)) this.dropCode(a);
    this.stops.clear();
    for (const a of next) this.stops.add(a);
    this.stopHook = hook;
    const shared = this.stops.size > 0 ? this.stops : null;
    for (const c of this.cpus) c.debugStops = shared;
  }

  run(cpu: number, budget: number, limit?: number): RunResult {
    const c = this.cpus[cpu];
    if (this.hook) {
      if (this.hook(cpu, c.rip) === true) return { reason: 'budget', rip: c.rip };
      const stepped = c.step();
      if (!c.atDebugStop) return stepped;
      // Stepping, every instruction is the step hook's: a stop is passed at once.
      c.atDebugStop = false;
      return this.pass(c);
    }
    const r = limit === undefined ? c.run(budget) : c.run(budget, limit);
    if (!c.atDebugStop) return r;
    c.atDebugStop = false;
    if (this.stopHook?.(cpu, c.rip) === true) return r;
    return this.pass(c);
  }

  /** Runs the instruction at a stop once, past the stop, which is back after it. */
  private pass(c: Cpu): RunResult {
    const rip = c.rip;
    this.stops.delete(rip);
    this.dropCode(rip);
    try {
      return c.step();
    } finally {
      this.stops.add(rip);
      this.dropCode(rip);
    }
  }
}
