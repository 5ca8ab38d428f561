import type { Cpu, RunResult } from '@int3/cpu';

/** What a CPU is asked to run: where the step hook (an oracle for tests) slows it to one instruction. */
export interface CpuRunner {
  /** Runs `cpu` up to `budget` virtual instructions (and `limit` in all), or one under the step hook. */
  run(cpu: number, budget: number, limit?: number): RunResult;
}

/**
 * Runs CPUs for the run loop and for host-to-guest calls. When {@link hook} is set, CPUs run one
 * instruction at a time and the hook sees the address of each before it runs: slow by design.
 */
export class CpuStepper implements CpuRunner {
  hook: ((cpu: number, rip: bigint) => void) | undefined;

  constructor(private readonly cpus: readonly Cpu[]) {}

  run(cpu: number, budget: number, limit?: number): RunResult {
    const c = this.cpus[cpu];
    if (this.hook) {
      this.hook(cpu, c.rip);
      return c.step();
    }
    return limit === undefined ? c.run(budget) : c.run(budget, limit);
  }
}
