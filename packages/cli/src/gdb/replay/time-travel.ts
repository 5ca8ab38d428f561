import type { Session, SessionSnapshot } from '@int3/kernel';
import { isPosition, type PositionVisitor, StepProbe, type TimelinePosition } from './step-probe.js';

/**
 * A position the snapshots cannot reach: every snapshot before it precedes an input whose state no
 * snapshot holds (tracefs writes: probe definitions, the trace buffer), which a re-run would redo.
 */
export class HistoryOutOfReach extends Error {}

/** Where the machine is: at a position, or past the log's last input. */
export type TimelinePoint = TimelinePosition | 'end';

/**
 * What a reverse search looks for at each position: true marks this position a candidate, a position
 * marks that one (an earlier one: a watchpoint's store is seen one position late); the last wins.
 */
export type PositionMatcher = (cpu: number, rip: bigint, retired: number, repeat: number) => boolean | TimelinePosition;

/**
 * Moves a replaying session's machine along its recorded run, to any instruction boundary, forwards
 * and backwards, by restoring the session's snapshots and re-running the log deterministically (as
 * QEMU's record/replay debugging and rr do). Every re-run is checked against the log by the session.
 *
 * - forwards: from where the machine is, until a visitor says stop;
 * - backwards: from the latest snapshot before here, re-run to here noting the positions a matcher
 *   accepts, then seek to the last one; with none, the same from the snapshot before, and so on back
 *   to the start of the history.
 */
export class TimeTravel {
  private readonly probe: StepProbe;
  private point: TimelinePoint = 'end';
  private first: TimelinePosition | undefined;

  constructor(
    private readonly session: Session,
    probe?: StepProbe,
    /** Which snapshots may be restored (default: all). */
    private readonly usable: (s: SessionSnapshot) => boolean = () => true,
  ) {
    this.probe = probe ?? new StepProbe(session.machine.cpus, session.machine.kernel.guest);
  }

  /**
   * Applies new inputs at the end of the history (a live run going on) with the probe as step hook,
   * and arrives where they held ('end': they did not hold, the run ended); `begin` marks that position
   * the start of the history.
   */
  extend(apply: () => void, begin = false): TimelinePoint {
    const machine = this.session.machine;
    this.probe.held = undefined;
    this.probe.takeInputEnd();
    machine.kernel.stepHook = this.probe.hook;
    try {
      apply();
    } finally {
      machine.kernel.stepHook = undefined;
    }
    this.point = this.probe.held ?? 'end';
    if (begin && this.point !== 'end') this.first = this.point;
    return this.point;
  }

  /** Where the machine is. */
  get here(): TimelinePoint {
    return this.point;
  }

  /** The first position of the history: the first instruction of the first run. */
  get begin(): TimelinePosition | undefined {
    return this.first;
  }

  /**
   * Goes to the first position of the history (before the first instruction of the first workload):
   * the first position after `from` (default: the session's origin).
   */
  start(from: SessionSnapshot = this.session.snapshotList()[0]): TimelinePoint {
    if (!this.usable(from)) throw new HistoryOutOfReach('the start of the run is out of reach');
    this.run(from, () => true);
    if (this.point !== 'end') this.first = this.point;
    return this.point;
  }

  /** Runs forwards from here until `visitor` stops it, or to the end of the log. */
  forward(visitor: PositionVisitor): TimelinePoint {
    if (this.point === 'end') return this.point;
    this.run('here', visitor);
    return this.point;
  }

  /**
   * Runs forwards from here at full speed (the kernel's debug stops: the probe is asked at `stops`
   * only) to the first position at one of `stops`, or to the end of the log; past `ms` of host time,
   * to the next position instead (`yielded`), one instruction at a time from where the run stopped.
   */
  forwardFast(stops: ReadonlySet<bigint>, ms: number): { readonly at: TimelinePoint; readonly yielded: boolean } {
    if (this.point === 'end') return { at: 'end', yielded: false };
    const kernel = this.session.machine.kernel;
    const probe = this.probe;
    const deadline = performance.now() + ms;
    let late = false;
    probe.onlyAt(stops);
    probe.visitor = (_cpu, rip) => stops.has(rip);
    probe.stopsOnly = stops;
    kernel.setDebugStops([...stops], probe.hook);
    let held: boolean;
    try {
      held = this.session.seekWhere('here', () => {
        if (probe.stop()) return true;
        late = performance.now() > deadline;
        return late;
      });
    } finally {
      kernel.setDebugStops([], undefined);
      probe.visitor = undefined;
      probe.stopsOnly = undefined;
    }
    if (late) {
      this.run('here', () => true);
      const at = this.here;
      return { at, yielded: at !== 'end' };
    }
    const ended = probe.takeInputEnd();
    this.point = (held || ended) && probe.held !== undefined ? probe.held : 'end';
    return { at: this.here, yielded: false };
  }

  /** Goes to the first position after log entry `n` was produced (the end, after the last one). */
  toEvent(n: number): TimelinePoint {
    const snaps = this.session.snapshotList();
    const from = snaps.findLast((x) => x.entries <= n) ?? snaps[0];
    if (!this.usable(from)) throw new HistoryOutOfReach(`event ${n} is out of reach`);
    this.run(from, () => this.session.position > n);
    return this.point;
  }

  /** Goes to `target`, a position the run passes. */
  seek(target: TimelinePoint): TimelinePoint {
    if (target === 'end') {
      const last = this.session.snapshotList().at(-1)!;
      if (!this.usable(last)) throw new HistoryOutOfReach('the end of the run is out of reach');
      this.run(last, () => false);
      return this.point;
    }
    // Past the target's retired count without meeting it: stop there rather than run to the end.
    this.run(
      this.snapshotBefore(target.retired),
      (cpu, rip, retired, repeat) => retired > target.retired || isPosition(target, cpu, rip, retired, repeat),
    );
    if (this.point === 'end' || !isPosition(this.point, target.cpu, target.rip, target.retired, target.repeat)) {
      throw new Error(`time travel: position ${target.retired}/${target.cpu} was not found again`);
    }
    return this.point;
  }

  /**
   * The last position before here that a matcher accepts, searching back snapshot by snapshot (a new
   * matcher from `matcher` for each span searched); undefined when there is none since the start of
   * the history. The machine is left anywhere: seek next.
   */
  lastBefore(matcher: () => PositionMatcher): TimelinePosition | undefined {
    const here = this.point;
    const snaps = this.session.snapshotList();
    let k = here === 'end' ? snaps.length - 1 : this.latestBefore(here.retired);
    let bound: number | undefined;
    for (; k >= 0 && this.usable(snaps[k]); k--) {
      let found: TimelinePosition | undefined;
      const upTo = bound;
      const matches = matcher();
      this.run(snaps[k], (cpu, rip, retired, repeat) => {
        const atHere = here !== 'end' && isPosition(here, cpu, rip, retired, repeat);
        if (upTo !== undefined && retired >= upTo) return true;
        const m = matches(cpu, rip, retired, repeat);
        if (m === true && !atHere) found = { retired, cpu, rip, repeat };
        else if (m !== false && m !== true) found = m;
        return atHere;
      });
      if (found !== undefined) return found;
      bound = retiredAt(snaps[k]);
    }
    return undefined;
  }

  /** Restores `from` (or stays), then runs the log with the probe until `visitor` stops it. */
  private run(from: SessionSnapshot | 'here', visitor: PositionVisitor): void {
    const machine = this.session.machine;
    if (from !== 'here') this.probe.reset();
    this.probe.visitor = visitor;
    machine.kernel.stepHook = this.probe.hook;
    let held: boolean;
    try {
      held = this.session.seekWhere(from, this.probe.stop);
    } finally {
      machine.kernel.stepHook = undefined;
      this.probe.visitor = undefined;
    }
    // An input that ended where the visitor stopped, as the log's last: no stop check followed it.
    const ended = this.probe.takeInputEnd();
    this.point = (held || ended) && this.probe.held !== undefined ? this.probe.held : 'end';
  }

  private snapshotBefore(retired: number): SessionSnapshot {
    const s = this.session.snapshotList()[this.latestBefore(retired)];
    if (s === undefined || !this.usable(s)) throw new HistoryOutOfReach('that point of the run is out of reach');
    return s;
  }

  /** The latest snapshot taken before `retired` instructions had retired (the origin at least). */
  private latestBefore(retired: number): number {
    const snaps = this.session.snapshotList();
    let lo = 0;
    let hi = snaps.length - 1;
    let found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      // A pinned snapshot starts the history: a position as far as it is comes after it.
      const at = retiredAt(snaps[mid]);
      if (at < retired || (snaps[mid].pinned === true && at <= retired)) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }
}

/** Instructions all CPUs had retired when the snapshot was taken. */
function retiredAt(s: SessionSnapshot): number {
  let sum = 0;
  for (const c of s.machine.cpus) sum += c.context.retired;
  return sum;
}
