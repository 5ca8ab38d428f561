import type { RunOutcome } from '../machine/machine.js';
import type { Task } from '../sched/task.js';
import type { MachineSnapshot } from '../snapshot/machine-snapshot.js';

/** An input being carried out: its index in the log and its number among inputs. */
export interface InputPosition {
  readonly entry: number;
  readonly input: number;
}

/** A machine snapshot of a session, and where in the log it was taken. */
export interface SessionSnapshot {
  /** How many log entries existed when it was taken. */
  readonly entries: number;
  /** Inputs begun by then (one may be in progress). */
  readonly inputs: number;
  /** The `input:run` in progress, for a snapshot taken at a round boundary inside it. */
  readonly resume: InputPosition | undefined;
  /** The workloads `input:spawn` had started. */
  readonly spawned: readonly Task[];
  readonly lastRun: RunOutcome | undefined;
  /** Virtual time of CPU 0. */
  readonly clockNs: number;
  readonly machine: MachineSnapshot;
}

/**
 * A session's snapshots in log order: in memory only, kept for the life of the session. Seeking to an
 * entry restores the latest snapshot taken before that entry existed.
 */
export class SnapshotTimeline {
  private readonly list: SessionSnapshot[] = [];

  /** Appends a snapshot; snapshots are taken in log order. */
  add(s: SessionSnapshot): void {
    const last = this.list[this.list.length - 1];
    if (last && s.entries < last.entries) throw new Error('snapshot timeline: snapshots must come in log order');
    this.list.push(Object.freeze(s));
  }

  /** The latest snapshot taken when at most `n` entries existed, or undefined when there is none. */
  latestBefore(n: number): SessionSnapshot | undefined {
    let lo = 0;
    let hi = this.list.length - 1;
    let found: SessionSnapshot | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.list[mid].entries <= n) {
        found = this.list[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  /** The first snapshot (the session's origin), if any. */
  first(): SessionSnapshot | undefined {
    return this.list[0];
  }

  /** Every snapshot, oldest first. */
  all(): readonly SessionSnapshot[] {
    return this.list;
  }
}
