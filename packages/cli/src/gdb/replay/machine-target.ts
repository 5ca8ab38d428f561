import type { LogEntry, SessionSnapshot } from '@int3/kernel';
import { escapeControls } from '../../runtime/escape-controls.js';
import { KRETPROBE_BOOSTER, type TracedSession } from '../../tracing/traced-session.js';
import { TRACER_START, TRACERS_STOP } from '../../tracing/tracer-inputs.js';
import {
  GDB_RUN,
  GDB_RUN_INSTRUCTIONS,
  GDB_RUN_SLICE_NS,
  GDB_WRITE,
  type GdbRunInput,
  gdbRunState,
  retiredNow,
} from '../live/gdb-inputs.js';
import {
  BreakpointType,
  type GdbTarget,
  type ResumeRequest,
  type StopEvent,
  TargetRefusal,
} from '../protocol/gdb-target.js';
import { type AccessHit, type AccessWatch, AccessWatches } from './access-watch.js';
import { cpuRegisters, isModelledRegister } from './machine-registers.js';
import { describeMachine, lsmod, MONITOR_HELP, traceUpTo } from './monitor-commands.js';
import type { TimelinePosition } from './step-probe.js';
import { HistoryOutOfReach, type PositionMatcher, type TimelinePoint, TimeTravel } from './time-travel.js';
import { WatchedBytes, type WriteWatch } from './watched-bytes.js';

/** Positions a forward run passes between two looks at the host clock (for Ctrl-C). */
const YIELD_EVERY_POSITIONS = 1 << 16;
/** Host milliseconds a forward run goes on before it yields to the event loop. */
const YIELD_EVERY_MS = 50;

const REPLAY_IS_READ_ONLY = 'a replay cannot be changed: it would no longer be the recorded run (as rr refuses)';
const PAST_IS_READ_ONLY =
  'the machine is in the past: a write here would change the history after it; continue to the end of the history first';

/**
 * Inputs whose effect no machine snapshot holds — the tracers' state (`--tracer`, `--plugin`) and the
 * kretprobe booster's switch — so a re-run must not redo them. Tracefs writes are not among them:
 * tracefs and kprobes have snapshot providers, so a snapshot before a probe definition is restored
 * without it and the re-run defines it again.
 */
const NOT_IN_SNAPSHOTS: ReadonlySet<string> = new Set([TRACER_START, TRACERS_STOP, KRETPROBE_BOOSTER]);

const OUT_OF_REACH =
  "int3: the history before here is out of reach: the run's tracers (--tracer, --plugin) or kretprobe-booster switch are in none of its snapshots\n";

/** A run going on under gdb (`trace --gdb`): its workloads, and the deadline of the run. */
export interface LiveRun {
  readonly pids: readonly number[];
  readonly deadlineNs?: number | undefined;
}

/**
 * A machine under gdb, a recorded run's or a live one's: every instruction boundary of its history is
 * reachable forwards and backwards ({@link TimeTravel}); breakpoints and watchpoints are checked at
 * every instruction as the run is (re-)executed, so guest memory and virtual time never change. A
 * replay's registers and memory are read-only; a live run journals gdb's resumes and writes as inputs
 * at the end of its history ({@link LiveRun}). Memory reads show the original bytes under armed
 * kprobes (`__recover_probed_insn`).
 *
 * @example
 * const target = new MachineTarget(traced, traced.session.log()); // a replayed session
 * await serveGdb({ address: { host: '127.0.0.1', port: 1234 }, target, listening: () => {} });
 */
export class MachineTarget implements GdbTarget {
  readonly threads: number;
  private readonly travel: TimeTravel;
  private readonly breakpoints = new Set<bigint>();
  private readonly writeWatches: WriteWatch[] = [];
  /** Read and access watchpoints (a live run's resumes journal them with the write watchpoints). */
  private readonly accessWatches: AccessWatch[] = [];
  private watched: WatchedBytes | undefined;
  private stop: StopEvent;
  private interrupted = false;
  private output = '';

  private liveEnded = false;
  /** The recorded run's whole trace (a replay's), read before anything is re-executed. */
  private recordedTrace: string | undefined;

  constructor(
    private readonly traced: TracedSession,
    /** The recorded log (for `monitor info` and `monitor event`); a live run's grows. */
    private readonly log: readonly LogEntry[],
    /** A live run: new inputs (each resume, each write) are journaled at the end of the history. */
    private readonly live?: LiveRun,
    /** Where the history starts, pinned right before its first instruction (default: the origin). */
    begin?: SessionSnapshot,
  ) {
    const machine = traced.session.machine;
    this.threads = machine.cpus.length;
    // Snapshots before a tracer's start cannot be restored: its state is in none of them. A live
    // run's trace is printed once gdb is gone, from the buffer at the end of the history, which a
    // re-run from a snapshot (the trace buffer in it) makes again exactly: each hit once.
    // A live run's tracers (--tracer, --plugin) see every hit as it happens, a re-executed one again:
    // with one started, a live run does not go back at all.
    const usable = (snap: SessionSnapshot) => {
      const entries = traced.session.log();
      for (let e = 0; e < entries.length; e++) {
        const type = entries[e].type;
        if (e >= snap.entries && NOT_IN_SNAPSHOTS.has(type)) return false;
        if (live && type === TRACER_START) return false;
      }
      return true;
    };
    this.travel = new TimeTravel(traced.session, gdbRunState(machine).probe, usable);
    // The recorded trace, before any stretch is re-executed.
    if (!live) this.recordedTrace = traced.fs.read('trace');
    const at = live ? this.extend(-1, true) : this.travel.start(begin);
    this.stop = at === 'end' ? this.endStop() : { kind: 'stopped', thread: at.cpu + 1 };
  }

  stopEvent(): StopEvent {
    return this.stop;
  }

  /** Text for gdb's console that the last resume produced (sent as `O` packets before its stop). */
  takeOutput(): string {
    const out = this.output;
    this.output = '';
    return out;
  }

  readRegisters(thread: number): readonly bigint[] {
    return cpuRegisters(this.cpu(thread));
  }

  writeRegister(thread: number, regno: number, value: bigint): void {
    this.mayWrite();
    // Refused before it is journaled: a register int3 does not model (x87, ds/es/fs/gs).
    if (!isModelledRegister(regno)) {
      throw new TargetRefusal(22, `register ${regno} is not modelled by int3's CPU`);
    }
    this.traced.session.apply({ type: GDB_WRITE, cpu: thread - 1, register: regno, value });
  }

  readMemory(thread: number, address: bigint, length: number): Uint8Array {
    const space = this.cpu(thread).addressSpace;
    let n = 0;
    while (n < length && address + BigInt(n) < 1n << 64n && space.isMapped(address + BigInt(n))) n++;
    if (n === 0) return new Uint8Array(0);
    const bytes = space.read(address, n).slice();
    this.traced.kprobes.recoverProbedInstruction(address, bytes);
    return bytes;
  }

  writeMemory(thread: number, address: bigint, bytes: Uint8Array): void {
    this.mayWrite();
    if (this.readMemory(thread, address, bytes.length).length !== bytes.length) {
      throw new TargetRefusal(14, 'unmapped memory');
    }
    this.traced.session.apply({
      type: GDB_WRITE,
      cpu: thread - 1,
      address,
      bytes: Buffer.from(bytes).toString('hex'),
    });
  }

  /** Writes go into a live run at the end of its history only (journaled, so the log replays). */
  private mayWrite(): void {
    if (!this.live) throw new TargetRefusal(1, REPLAY_IS_READ_ONLY);
    if (!this.atFrontier() || this.liveEnded) throw new TargetRefusal(1, PAST_IS_READ_ONLY);
  }

  /** True at the end of the history: the position the live run has reached. */
  private atFrontier(): boolean {
    const s = this.traced.session;
    return s.position === s.log().length;
  }

  /**
   * Goes on with the live run: journals one `input:gdb-run` with gdb's stop conditions and carries it
   * out. 'end' when the workloads are done.
   */
  private extend(stepCpu: number, first = false): TimelinePoint {
    const live = this.live!;
    const m = this.traced.session.machine;
    const input: GdbRunInput = {
      type: GDB_RUN,
      pids: [...live.pids],
      from: retiredNow(m),
      instructions: GDB_RUN_INSTRUCTIONS,
      breakpoints: [...this.breakpoints].map((b) => b.toString(16)),
      watches: this.writeWatches.map((w) => `${w.address.toString(16)}:${w.length}`),
      ...(this.accessWatches.length === 0
        ? {}
        : {
            accesses: this.accessWatches.map(
              (w) => `${w.type === 'rwatch' ? 'r' : 'a'}:${w.address.toString(16)}:${w.length}`,
            ),
          }),
      step: stepCpu,
      // A continue with breakpoints only runs at full speed, a slice of virtual time at a time.
      ...(stepCpu < 0 && !first && this.writeWatches.length === 0 && this.accessWatches.length === 0
        ? { untilNs: m.clock(0) + GDB_RUN_SLICE_NS }
        : {}),
      ...(live.deadlineNs === undefined ? {} : { deadlineNs: live.deadlineNs }),
      ...(first ? { first: true } : {}),
    };
    const at = this.travel.extend(() => this.traced.session.apply(input), first);
    if (at === 'end') this.liveEnded = true;
    return at;
  }

  insertBreakpoint(type: BreakpointType, address: bigint, length: number): boolean {
    if (type === BreakpointType.Software || type === BreakpointType.Hardware) {
      this.breakpoints.add(address);
      return true;
    }
    if (type === BreakpointType.ReadWatch || type === BreakpointType.AccessWatch) {
      if (length < 1 || length > 8) return false;
      const kind = type === BreakpointType.ReadWatch ? 'rwatch' : 'awatch';
      if (!this.accessWatches.some((w) => w.type === kind && w.address === address && w.length === length)) {
        this.accessWatches.push({ type: kind, address, length });
      }
      return true;
    }
    if (type !== BreakpointType.WriteWatch) return false;
    if (!this.writeWatches.some((w) => w.address === address && w.length === length)) {
      this.writeWatches.push({ address, length });
    }
    this.watched = undefined;
    return true;
  }

  removeBreakpoint(type: BreakpointType, address: bigint, length: number): boolean {
    if (type === BreakpointType.Software || type === BreakpointType.Hardware) {
      this.breakpoints.delete(address);
      return true;
    }
    if (type === BreakpointType.ReadWatch || type === BreakpointType.AccessWatch) {
      const kind = type === BreakpointType.ReadWatch ? 'rwatch' : 'awatch';
      const i = this.accessWatches.findIndex((w) => w.type === kind && w.address === address && w.length === length);
      if (i >= 0) this.accessWatches.splice(i, 1);
      return true;
    }
    if (type !== BreakpointType.WriteWatch) return false;
    const i = this.writeWatches.findIndex((w) => w.address === address && w.length === length);
    if (i >= 0) this.writeWatches.splice(i, 1);
    this.watched = undefined;
    return true;
  }

  threadInfo(thread: number): string {
    const task = this.traced.session.machine.sched.current[thread - 1];
    const who = task ? `${escapeControls(task.comm)} (pid ${task.pid})` : 'idle';
    return `CPU ${thread - 1}: ${who}`;
  }

  interrupt(): void {
    this.interrupted = true;
  }

  async resume(request: ResumeRequest): Promise<StopEvent> {
    this.interrupted = false;
    this.stop = request.direction === 'forward' ? await this.forward(request) : this.reverse(request);
    return this.stop;
  }

  monitor(command: string): string {
    const [verb, ...args] = command.trim().split(/\s+/);
    if (verb === 'info') return describeMachine(this.traced.session, this.log.length, this.travel.here === 'end');
    if (verb === 'event') return this.seekEvent(args[0]);
    if (verb === 'lsmod') return lsmod(this.traced.session.machine.modules.list());
    if (verb === 'kprobes') return escapeControls(this.traced.kprobes.debugfs.list()) || 'no kprobes registered\n';
    if (verb === 'trace') return escapeControls(this.traceSoFar());
    if (verb === 'help' || verb === '') return MONITOR_HELP;
    throw new TargetRefusal(22, `unknown monitor command '${escapeControls(verb)}' (monitor help lists them)`);
  }

  private cpu(thread: number) {
    return this.traced.session.machine.cpus[thread - 1];
  }

  /** The watched bytes of the write watchpoints, read now (undefined without any). */
  private watchNow(): WatchedBytes | undefined {
    if (this.writeWatches.length === 0) return undefined;
    this.watched ??= new WatchedBytes(this.traced.session.machine.space, [...this.writeWatches]);
    this.watched.refresh();
    return this.watched;
  }

  private async forward(request: ResumeRequest): Promise<StopEvent> {
    const bps = this.breakpoints;
    const stepCpu = request.action === 'step' ? request.thread - 1 : -1;
    let watch: WriteWatch | undefined;
    for (;;) {
      let yielded = false;
      let at: TimelinePoint = 'end';
      if (!this.live || !this.atFrontier()) {
        // Step 1: through the history, re-executed.
        const watched = this.watchNow();
        const accesses = this.accessWatches.length > 0 ? new AccessWatches(this.accessWatches) : undefined;
        let hit: AccessHit | undefined;
        let count = 0;
        const deadline = performance.now() + YIELD_EVERY_MS;
        const uninstall = accesses?.install(this.traced.session.machine.cpus);
        try {
          if (watched === undefined && accesses === undefined && stepCpu < 0) {
            // Breakpoints only: at full speed, the kernel's debug stops at them.
            const fast = this.travel.forwardFast(bps, YIELD_EVERY_MS);
            at = fast.at;
            yielded = fast.yielded;
          } else {
            at = this.travel.forward((cpu, rip) => {
              // The instruction before this position touched a read or access watchpoint.
              hit = accesses?.take();
              if (hit !== undefined) return true;
              if (watched !== undefined) {
                watch = watched.changed();
                if (watch !== undefined) return true;
              }
              if (cpu === stepCpu || bps.has(rip)) return true;
              if (++count % YIELD_EVERY_POSITIONS === 0 && performance.now() > deadline) yielded = true;
              return yielded;
            });
          }
        } finally {
          uninstall?.();
        }
        if (at !== 'end' && hit !== undefined) return this.accessStop(hit.cpu, hit.watch);
        if (at !== 'end' && !yielded) return this.stopAt(at, watch);
      }
      if (at === 'end') {
        // Step 2: past the history, a live run goes on, journaled; a replay has ended.
        if (!this.live || this.liveEnded) return this.endStop();
        at = this.extend(stepCpu);
        if (at === 'end') return this.endStop();
        const why = gdbRunState(this.traced.session.machine).stop;
        if (why?.kind === 'access') return this.accessStop(why.hit.cpu, why.hit.watch);
        if (why?.kind !== 'bound') return this.stopAt(at, why?.kind === 'watch' ? why.watch : undefined);
      }
      // Step 3: let Ctrl-C in, then go on.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.interrupted) return { kind: 'stopped', thread: at.cpu + 1, signal: 2 };
    }
  }

  private reverse(request: ResumeRequest): StopEvent {
    const here = this.travel.here;
    try {
      return this.reverseSearch(request);
    } catch (error) {
      if (!(error instanceof HistoryOutOfReach)) throw error;
      // Back where it was (reachable, or nothing moved), saying why.
      if (here !== 'end') {
        try {
          this.travel.seek(here);
        } catch (again) {
          if (!(again instanceof HistoryOutOfReach)) throw again;
        }
      }
      this.output += OUT_OF_REACH;
      return {
        kind: 'stopped',
        thread: this.stop.kind === 'stopped' ? this.stop.thread : 1,
        reason: { type: 'replaylog', which: 'begin' },
      };
    }
  }

  private reverseSearch(request: ResumeRequest): StopEvent {
    const bps = this.breakpoints;
    const stepCpu = request.action === 'step' ? request.thread - 1 : -1;
    const space = this.traced.session.machine.space;
    const watches = [...this.writeWatches];
    const accesses = this.accessWatches.length > 0 ? new AccessWatches(this.accessWatches) : undefined;
    let watchHit: WriteWatch | undefined;
    let accessHit: AccessHit | undefined;
    const matcher = (): PositionMatcher => {
      if (stepCpu >= 0) return (cpu) => cpu === stepCpu;
      // A watched store or access shows at the position after it: the candidate is the one before.
      let watched: WatchedBytes | undefined;
      let previous: TimelinePosition | undefined;
      accesses?.take();
      return (cpu, rip, retired, repeat) => {
        let m: boolean | TimelinePosition = bps.has(rip);
        if (watches.length > 0) {
          if (watched === undefined) watched = new WatchedBytes(space, watches);
          else {
            const hit = watched.changed();
            if (hit !== undefined && previous !== undefined) {
              m = previous;
              watchHit = hit;
              accessHit = undefined;
            }
          }
        }
        const touched = accesses?.take();
        if (touched !== undefined && previous !== undefined) {
          m = previous;
          accessHit = touched;
          watchHit = undefined;
        }
        if (m === true) {
          watchHit = undefined;
          accessHit = undefined;
        }
        previous = { retired, cpu, rip, repeat };
        return m;
      };
    };
    const uninstall = accesses?.install(this.traced.session.machine.cpus);
    let found: TimelinePosition | undefined;
    try {
      found = this.travel.lastBefore(matcher);
    } finally {
      uninstall?.();
    }
    if (found === undefined) {
      const begin = this.travel.begin;
      if (begin === undefined) return this.endStop();
      this.travel.seek(begin);
      return { kind: 'stopped', thread: begin.cpu + 1, reason: { type: 'replaylog', which: 'begin' } };
    }
    this.travel.seek(found);
    if (stepCpu >= 0) return { kind: 'stopped', thread: found.cpu + 1 };
    if (accessHit !== undefined) return this.accessStop(found.cpu, accessHit.watch);
    if (bps.has(found.rip) && watchHit === undefined) {
      return { kind: 'stopped', thread: found.cpu + 1, reason: { type: 'swbreak' } };
    }
    return {
      kind: 'stopped',
      thread: found.cpu + 1,
      ...(watchHit ? { reason: { type: 'watch' as const, address: watchHit.address } } : {}),
    };
  }

  private accessStop(cpu: number, w: AccessWatch): StopEvent {
    return { kind: 'stopped', thread: cpu + 1, reason: { type: w.type, address: w.address } };
  }

  private stopAt(at: TimelinePosition, watch: WriteWatch | undefined): StopEvent {
    const thread = at.cpu + 1;
    if (watch !== undefined) return { kind: 'stopped', thread, reason: { type: 'watch', address: watch.address } };
    if (this.breakpoints.has(at.rip)) return { kind: 'stopped', thread, reason: { type: 'swbreak' } };
    return { kind: 'stopped', thread };
  }

  private endStop(): StopEvent {
    const s = this.traced.session;
    this.output += this.live
      ? 'int3: the run ends here (its workloads are done): reverse-continue or reverse-stepi go back\n'
      : `int3: the recorded run ends here (event ${s.position - 1} of ${this.log.length - 1}): reverse-continue or reverse-stepi go back\n`;
    return { kind: 'stopped', thread: 1, reason: { type: 'replaylog', which: 'end' } };
  }

  /**
   * The trace up to here: in a replay, the recorded run's trace (read before anything re-executed a
   * stretch, which adds its hits to the buffer again) up to the current virtual time; in a live run,
   * the buffer as it is.
   */
  private traceSoFar(): string {
    if (this.recordedTrace === undefined) return this.traced.fs.read('trace');
    const m = this.traced.session.machine;
    return traceUpTo(this.recordedTrace, m.cpus.length, (cpu) => m.clock(cpu));
  }

  private seekEvent(arg: string | undefined): string {
    const n = Number(arg);
    if (arg === undefined || !/^\d+$/.test(arg) || n >= this.log.length) {
      throw new TargetRefusal(22, `monitor event N: N from 0 to ${this.log.length - 1}`);
    }
    let at: TimelinePoint;
    try {
      at = this.travel.toEvent(n);
    } catch (error) {
      if (!(error instanceof HistoryOutOfReach)) throw error;
      throw new TargetRefusal(1, `event ${n} is out of reach (before a tracer's start, in no snapshot)`);
    }
    this.stop = at === 'end' ? this.endStop() : { kind: 'stopped', thread: at.cpu + 1 };
    return `at the first instruction after event ${n}: ${this.log[n].type}\n`;
  }
}
