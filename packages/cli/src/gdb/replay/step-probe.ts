import type { Cpu } from '@int3/cpu';
import type { GuestCalls, StepHook } from '@int3/kernel';

/**
 * A point of a deterministic run: right before `cpu` runs the instruction at `rip`, when all CPUs
 * together had retired `retired` instructions. `repeat` tells apart the steps that retire nothing at
 * the same place (a fault the kernel fixes and retries, a gate): 0 for the first, 1 for the next, …
 * The same log always passes the same positions in the same order, so a position can be sought again.
 */
export interface TimelinePosition {
  readonly retired: number;
  readonly cpu: number;
  readonly rip: bigint;
  readonly repeat: number;
}

/** Asked at every position a run passes: true stops the run there (before the instruction runs). */
export type PositionVisitor = (cpu: number, rip: bigint, retired: number, repeat: number) => boolean;

/** True when the position is `p`. */
export function isPosition(p: TimelinePosition, cpu: number, rip: bigint, retired: number, repeat: number): boolean {
  return p.retired === retired && p.cpu === cpu && p.rip === rip && p.repeat === repeat;
}

/**
 * The step hook and stop predicate of a debugged run. As the hook, it numbers the positions the CPUs
 * pass (see {@link TimelinePosition}) and asks its visitor about each; when the visitor says stop, it
 * holds the CPU before the instruction and the stop predicate (the session's) stops the run there.
 * A hold the run loop cannot stop at (a run without a stop predicate, inside the kernel's own rounds)
 * is let go: the instruction runs. Host-to-guest calls are never held.
 */
export class StepProbe {
  private lastRetired = -1;
  private lastCpu = -1;
  private lastRip = 0n;
  private repeat = 0;
  /** A hold the run has not stopped at yet. */
  private pending: TimelinePosition | undefined;
  /** The held position runs next: it is not visited again. */
  private skip = false;
  /** The run was held where an input ended: the session's next stop check (between inputs) stops. */
  private boundary = false;
  /** Where the last stop held. */
  held: TimelinePosition | undefined;
  visitor: PositionVisitor | undefined;
  /**
   * Set while the visitor stops only at these addresses (a full-speed run on the kernel's debug
   * stops): an input that runs its own stops may run at full speed too, with these among them.
   */
  stopsOnly: ReadonlySet<bigint> | undefined;

  constructor(
    private readonly cpus: readonly Cpu[],
    private readonly guest: Pick<GuestCalls, 'active'>,
  ) {}

  /** Forgets where the CPUs were: after a snapshot is restored. */
  reset(): void {
    this.lastRetired = -1;
    this.lastCpu = -1;
    this.repeat = 0;
    this.pending = undefined;
    this.skip = false;
    this.boundary = false;
    this.held = undefined;
  }

  /**
   * The hook is about to be asked at `stops` only (debug stops, not every instruction): a hold to let
   * go is kept only if it is at one of them, where the hook is asked next; elsewhere its instruction
   * runs without asking.
   */
  onlyAt(stops: ReadonlySet<bigint>): void {
    if (this.skip && (this.held === undefined || !stops.has(this.held.rip))) this.skip = false;
  }

  /**
   * Asks the session to stop after the input in progress ends: an input handler held the run where a
   * seek also wanted to stop, and ends there (the hold is the input's end, not an interruption).
   */
  stopAtInputEnd(): void {
    this.boundary = true;
  }

  /**
   * True (once) when an input ended where a seek wanted to stop and no stop check came after it (it
   * was the log's last input).
   */
  takeInputEnd(): boolean {
    const b = this.boundary;
    this.boundary = false;
    return b;
  }

  readonly hook: StepHook = (cpu, rip) => {
    if (this.pending !== undefined || this.skip) {
      // The held instruction (or one whose hold no stop followed) runs now.
      this.pending = undefined;
      this.skip = false;
      return false;
    }
    if (this.guest.active) return false;
    let retired = 0;
    for (let c = 0; c < this.cpus.length; c++) retired += this.cpus[c].retired;
    if (retired === this.lastRetired && cpu === this.lastCpu && rip === this.lastRip) this.repeat++;
    else {
      this.lastRetired = retired;
      this.lastCpu = cpu;
      this.lastRip = rip;
      this.repeat = 0;
    }
    if (this.visitor?.(cpu, rip, retired, this.repeat) !== true) return false;
    this.pending = Object.freeze({ retired, cpu, rip, repeat: this.repeat });
    return true;
  };

  /** The session's stop predicate: true right after the hook held a CPU. */
  readonly stop = (): boolean => {
    const p = this.pending;
    if (p === undefined) {
      const b = this.boundary;
      this.boundary = false;
      return b;
    }
    this.pending = undefined;
    this.held = p;
    this.skip = true;
    return true;
  };
}
