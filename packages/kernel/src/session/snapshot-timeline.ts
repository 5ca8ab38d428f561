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
  /** Kept whatever the spacing ({@link Session.snapshotHere}: where a debugger's history starts). */
  readonly pinned?: boolean;
}

/** Default {@link SnapshotTimeline} capacity: snapshots a session keeps, however long it runs. */
export const DEFAULT_MAX_SNAPSHOTS = 64;

/**
 * A session's snapshots in log order, in memory, at most `capacity` of them whatever the run's length.
 *
 * The policy: virtual time (of CPU 0) is cut into buckets of `spacingNs`, and a bucket holds at most
 * one snapshot, the first one offered in it ({@link wants} says whether an offer would be kept). When
 * an add passes the capacity, the spacing doubles and each new, twice as wide bucket keeps its first
 * snapshot only, until the count fits again. So the snapshots kept stay spread evenly over the whole
 * run, at most one per `spacingNs`, which once thinning started is less than twice the run's length
 * divided by `capacity - 1`: a seek re-executes about that much virtual time at most (plus the inputs
 * of that span). The first snapshot (the session's origin) is the first of its bucket and is never
 * dropped.
 *
 * Which snapshots exist never changes what a seek or a replay reaches, only how much it re-executes.
 * A pinned snapshot is kept outside this policy (it is neither refused nor thinned away).
 */
export class SnapshotTimeline {
  private readonly list: SessionSnapshot[] = [];
  private spacing: number;

  /**
   * @param spacingNs initial bucket width in virtual ns (`Infinity`: the origin only)
   * @param capacity most snapshots kept (at least 2)
   */
  constructor(
    spacingNs: number,
    private readonly capacity = DEFAULT_MAX_SNAPSHOTS,
  ) {
    if (!(spacingNs > 0)) throw new RangeError(`snapshot timeline: spacing ${spacingNs} ns must be positive`);
    if (!Number.isInteger(capacity) || capacity < 2) {
      throw new RangeError(`snapshot timeline: capacity ${capacity} must be an integer of at least 2`);
    }
    this.spacing = spacingNs;
  }

  /** Current bucket width in virtual ns: the least distance between two kept snapshots' buckets. */
  get spacingNs(): number {
    return this.spacing;
  }

  /** True when a snapshot taken at `clockNs` would be kept: the timeline is empty or its bucket is. */
  wants(clockNs: number): boolean {
    const last = this.list[this.list.length - 1];
    return last === undefined || this.bucket(clockNs) > this.bucket(last.clockNs);
  }

  /**
   * Appends a snapshot (snapshots come in log order, and in virtual-time order), then thins the
   * timeline if it passed its capacity. A snapshot {@link wants} refuses is not kept.
   */
  add(s: SessionSnapshot): void {
    const last = this.list[this.list.length - 1];
    if (last && (s.entries < last.entries || s.clockNs < last.clockNs)) {
      throw new Error('snapshot timeline: snapshots must come in log and virtual-time order');
    }
    if (!s.pinned && !this.wants(s.clockNs)) return;
    this.list.push(Object.freeze(s));
    while (this.list.length > this.capacity) this.thin();
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

  /** Every snapshot kept, oldest first. */
  all(): readonly SessionSnapshot[] {
    return this.list;
  }

  /** Doubles the spacing and keeps the first snapshot of each new bucket. */
  private thin(): void {
    this.spacing *= 2;
    let kept = 0;
    for (let i = 0; i < this.list.length; i++) {
      const s = this.list[i];
      if (kept === 0 || s.pinned || this.bucket(s.clockNs) > this.bucket(this.list[kept - 1].clockNs))
        this.list[kept++] = s;
    }
    this.list.length = kept;
  }

  private bucket(clockNs: number): number {
    return Math.floor(clockNs / this.spacing);
  }
}
