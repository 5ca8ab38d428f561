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

  constructor(private readonly cpus: readonly Cpu[]) {}

  run(cpu: number, budget: number, limit?: number): RunResult {
    const c = this.cpus[cpu];
    if (this.hook) {
      if (this.hook(cpu, c.rip) === true) return { reason: 'budget', rip: c.rip };
      return c.step();
    }
    return limit === undefined ? c.run(budget) : c.run(budget, limit);
  }
}
