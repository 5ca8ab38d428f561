import type { Cpu } from '@int3/cpu';
import { NS_PER_INSTRUCTION } from '../time/virtual-time.js';

/** Virtual time of a CPU in nanoseconds, what every timestamped event reads. */
export interface Clock {
  clock(cpu: number): number;
}

/**
 * Each CPU's virtual clock: its virtual instructions plus the time it spent idle (the offset, which
 * the run loop advances while a CPU has nothing to run).
 *
 * @see kernel/sched/clock.c local_clock()
 */
export class CpuClocks implements Clock {
  /** Virtual ns each CPU spent idle. */
  readonly offsetNs: number[];

  constructor(private readonly cpus: readonly Cpu[]) {
    this.offsetNs = new Array(cpus.length).fill(0);
  }

  clock(cpu: number): number {
    return this.cpus[cpu].virtualRetired * NS_PER_INSTRUCTION + this.offsetNs[cpu];
  }
}
