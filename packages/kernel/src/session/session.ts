import { createHash } from 'node:crypto';
import type { Subscription } from 'rxjs';
import { KernelError } from '../kernel-error.js';
import { MAX_CPUS, MAX_QUANTUM } from '../log/kernel-log-schemas.js';
import { decodeLog, encodeLogLine, type LogEntry, logHeaderLine } from '../log/log-codec.js';
import type { EntrySchema } from '../log/log-schema.js';
import type { LogSink } from '../log/log-sink.js';
import { type LogEnd, type ValidLog, validateLog } from '../log/validate-log.js';
import { Machine, type RunOutcome } from '../machine/machine.js';
import type { Task } from '../sched/task.js';
import {
  DEFAULT_MAX_SNAPSHOTS,
  type InputPosition,
  type SessionSnapshot,
  SnapshotTimeline,
} from './snapshot-timeline.js';
import { stateHash } from './state-hash.js';
import { untilAllExited } from './until-all-exited.js';

/** The initial configuration of a run: the first entry of every log. */
export interface RunConfig extends LogEntry {
  readonly type: 'config';
  readonly image: string;
  readonly imageSha256: string;
  readonly cpus: number;
  readonly quantum: number;
  readonly panicOnOops: boolean;
}

/** How a session's machine is built. */
export interface SessionOptions {
  readonly image: Uint8Array;
  readonly imageName: string;
  readonly cpus?: number;
  readonly quantum?: number;
  readonly panicOnOops?: boolean;
  readonly programs: (name: string) => Uint8Array | undefined;
  /** Also journal what the inputs caused (traps, die notifications, tasks, printk, …). Default true. */
  readonly recordEvents?: boolean;
  /**
   * Least virtual time of CPU 0 between two snapshots (default {@link DEFAULT_SNAPSHOT_EVERY_NS};
   * `Infinity`: the origin only). A snapshot is taken at the first stop point (a round boundary inside
   * `input:run`, or the end of an input) of each such span; the span doubles whenever more than
   * `maxSnapshots` would be kept (see {@link SnapshotTimeline}).
   */
  readonly snapshotEveryNs?: number;
  /** Most snapshots kept, however long the session runs (default {@link DEFAULT_MAX_SNAPSHOTS}). */
  readonly maxSnapshots?: number;
  /**
   * Where the log is written as it grows (header first, then each entry as it is journaled), so a long
   * run never holds its log as one string. {@link Session.text} still gives the whole log.
   */
  readonly sink?: LogSink | undefined;
}

/** Default least interval of a session's snapshots: 1 ms of virtual time (a million instructions). */
export const DEFAULT_SNAPSHOT_EVERY_NS = 1_000_000;

/** What the last {@link Session.seek} did. */
export interface SeekStats {
  /** Log entries that existed at the snapshot it restored. */
  readonly fromEntries: number;
  /** Log entries that exist at the position it stopped at (at least `n + 1`). */
  readonly position: number;
  /** Instructions re-executed after the restore, all CPUs together. */
  readonly instructions: number;
}

/**
 * Applies one input of a type another package defined (probe definitions, tracefs writes, …).
 * Returning `'stopped'` says the input is not finished: a run it made was stopped by the session's
 * stop predicate (a seek's, see {@link Session.seekWhere}), as `input:run` is; the session is then
 * inside it, and calls the handler again with the same input to go on with it.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: most handlers return nothing
export type InputHandler = (input: LogEntry, session: Session) => void | 'stopped';

/** A checkpoint: the state hash after input number `input`. */
interface Checkpoint extends LogEntry {
  readonly type: 'checkpoint';
  readonly input: number;
  readonly clocks: readonly number[];
  readonly hash: string;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * A run as an event-sourced log: the initial configuration, then every external input (workload
 * starts, module loads, probe definitions — inputs of other packages register their handlers), each
 * followed by a checkpoint with the machine's state hash, and, interleaved, the events the inputs
 * caused. Everything that changes the machine goes through {@link apply}, so the log replays to the
 * identical state.
 *
 * @example
 * const s = Session.create({ image, imageName: 'vmlinux', programs });
 * s.apply({ type: 'input:spawn', argv: ['cat', '/etc/motd'] });
 * s.apply({ type: 'input:run', until: 'idle' });
 * writeFileSync('run.int3log', s.text());
 */
export class Session {
  readonly machine: Machine;
  readonly config: RunConfig;
  private readonly entries: LogEntry[] = [];
  private readonly handlers = new Map<string, InputHandler>();
  private readonly subscription: Subscription | undefined;
  private inputs = 0;
  /** Entries produced on the machine's timeline: `entries.length` except after a seek into the past. */
  private cursor = 0;
  private readonly snapshots: SnapshotTimeline;
  /** The input being carried out. */
  private current: InputPosition | undefined;
  /** When set, runs stop at the first stop point where it holds (seek, bounded replay). */
  private stop: (() => boolean) | undefined;
  /** When set, an `input:run` pauses at the first stop point where it holds ({@link applyPausable}). */
  private pause: (() => boolean) | undefined;
  /** The input a stop interrupted: the machine is inside it. */
  private interrupted: InputPosition | undefined;
  /** True while a seek re-runs recorded inputs (no snapshots are taken then: they exist). */
  private seeking = false;
  /** First entry a seek's re-run produced differently from the log. */
  private divergedAt: number | undefined;
  private closed = false;
  /**
   * The recorded log a replay is checked against ({@link expectLog}): the index of the next recorded
   * entry, and the first difference found.
   */
  private mirror:
    | { readonly entries: readonly LogEntry[]; at: number; diverged?: { readonly n: number; readonly ours: LogEntry } }
    | undefined;
  private readonly schemas = new Map<string, EntrySchema>();
  /** State of other packages that decides what is printed (probe definitions, filters): in every hash. */
  private readonly hashed: [string, () => string][] = [];
  private readonly sink: LogSink | undefined;
  /** Set once the end record is journaled: no input follows it. */
  private ended: LogEnd | undefined;
  /** Tasks started by `input:spawn`, in order. */
  readonly spawned: Task[] = [];
  /** Outcome of the last `input:run`. */
  lastRun: RunOutcome | undefined;
  /** What the last {@link seek} did. */
  lastSeek: SeekStats | undefined;

  private constructor(
    options: SessionOptions,
    private readonly programs: (name: string) => Uint8Array | undefined,
  ) {
    const cpus = options.cpus ?? 2;
    const quantum = options.quantum ?? 10_000;
    if (!Number.isInteger(cpus) || cpus < 1 || cpus > MAX_CPUS) {
      throw new KernelError('EINVAL', `cpus must be an integer from 1 to ${MAX_CPUS}, not ${cpus}`);
    }
    if (!Number.isInteger(quantum) || quantum < 1 || quantum > MAX_QUANTUM) {
      throw new KernelError('EINVAL', `quantum must be an integer from 1 to ${MAX_QUANTUM}, not ${quantum}`);
    }
    this.config = Object.freeze({
      type: 'config',
      image: options.imageName,
      imageSha256: sha256(options.image),
      cpus,
      quantum,
      panicOnOops: options.panicOnOops ?? false,
    });
    this.snapshots = new SnapshotTimeline(
      options.snapshotEveryNs ?? DEFAULT_SNAPSHOT_EVERY_NS,
      options.maxSnapshots ?? DEFAULT_MAX_SNAPSHOTS,
    );
    this.sink = options.sink;
    this.sink?.write(logHeaderLine());
    this.produce(this.config);
    this.machine = Machine.boot({
      image: options.image,
      imageName: options.imageName,
      cpus: this.config.cpus,
      quantum: this.config.quantum,
      panicOnOops: this.config.panicOnOops,
      programs,
    });
    if (options.recordEvents ?? true) {
      this.subscription = this.machine.events$.subscribe((e) => this.produce({ ...e } as LogEntry));
    } else {
      // Not journaled, but still compared with a recorded log when a replay checks one.
      this.subscription = this.machine.events$.subscribe((e) => {
        if (this.mirror) this.compareWithMirror({ ...e } as LogEntry);
      });
    }
    this.handlers.set('input:spawn', (i) => {
      const argv = i.argv as string[];
      const bytes = this.programs(argv[0] ?? '');
      if (bytes && i.sha256 !== undefined && i.sha256 !== sha256(bytes)) {
        throw new KernelError('BAD_LOG', `workload ${argv[0]} differs from the one this log was recorded with`);
      }
      this.spawned.push(this.machine.spawn(argv));
    });
    this.handlers.set('input:run', (i) => {
      const pids = i.pids as number[] | undefined;
      const until = pids ? this.allExited(pids) : undefined;
      const outcome = this.machine.run({
        until,
        deadlineNs: i.deadlineNs as number | undefined,
        stopAfter: this.pause ? () => this.stop?.() === true || this.pause!() : this.stop,
        onRound: () => this.snapshot(this.current),
      });
      if (outcome.reason === 'stopped') this.interrupted = this.current;
      else this.lastRun = outcome;
    });
    this.handlers.set('input:insmod', (i) => {
      const params = Array.isArray(i.params) ? i.params.filter((x): x is string => typeof x === 'string') : [];
      const bytes = Buffer.from(i.data as string, 'base64');
      if (typeof i.sha256 === 'string' && createHash('sha256').update(bytes).digest('hex') !== i.sha256) {
        throw new KernelError(
          'BAD_LOG',
          `insmod ${i.name as string}: the module's bytes do not match their sha256 (the log was altered)`,
        );
      }
      this.machine.modules.load(bytes, i.name as string, 0, params);
    });
    this.handlers.set('input:rmmod', (i) => this.machine.modules.unload(i.name as string));
  }

  /** Boots a machine for a new run. */
  static create(options: SessionOptions): Session {
    return new Session(options, options.programs);
  }

  /**
   * Registers how inputs of `type` are applied (e.g. `input:tracefs-write` by the tracer), and the
   * schema a replay checks their fields against (event-log.md §2).
   */
  handle(type: string, handler: InputHandler, schema?: EntrySchema): void {
    this.handlers.set(type, handler);
    if (schema) this.schemas.set(type, schema);
  }

  /**
   * Adds state of another package to every checkpoint's hash: what decides the printed output but is
   * not machine state (probe definitions, filters, triggers). `describe` returns it as text.
   */
  hashAlso(name: string, describe: () => string): void {
    this.hashed.push([name, describe]);
  }

  /**
   * Journals the end record (event-log.md §2): the entries and inputs before it and the final state
   * hash; `stop` says whether the recording ran to its end or a signal stopped it. No input follows.
   */
  end(stop: LogEnd['stop'] = 'complete'): void {
    if (this.ended) return;
    if (this.cursor !== this.entries.length || this.interrupted) {
      throw new KernelError('EBUSY', 'end(): the machine is in the past after seek()');
    }
    const end: LogEnd = { type: 'end', entries: this.entries.length, inputs: this.inputs, hash: this.hash(), stop };
    this.produce(end);
    this.ended = end;
  }

  /**
   * Applies an external input: journals it, carries it out, then journals a checkpoint with the state
   * hash. An input of an unknown type is refused before anything is journaled, and so is any input
   * while a {@link seek} left the machine in the past.
   */
  apply(input: LogEntry): void {
    if (!this.handlers.has(input.type)) throw new KernelError('BAD_LOG', `no handler for input type '${input.type}'`);
    if (this.ended) throw new KernelError('EBUSY', 'the log has ended: no input follows its end record');
    if (this.cursor !== this.entries.length || this.interrupted) {
      throw new KernelError(
        'EBUSY',
        `the machine is at entry ${this.cursor - 1} of ${this.entries.length} after seek(): seek(${this.entries.length - 1}) before applying new inputs`,
      );
    }
    this.originSnapshot();
    this.execute(input.type === 'input:spawn' ? this.withProgramDigest(input) : input);
  }

  /**
   * Applies an input as {@link apply} does, but an `input:run` pauses at the first stop point (between
   * two CPU runs) where `pause` holds — a host-time budget, so a long run can yield to the event loop
   * (where signals are delivered). Returns false when it paused: the input is not finished (no
   * checkpoint yet, no other input accepted) until {@link resume} returns true. Pausing changes
   * nothing of what the run does or journals.
   *
   * @example
   * let done = s.applyPausable(input, overBudget);
   * while (!done) { await yieldToEventLoop(); done = s.resume(overBudget); }
   */
  applyPausable(input: LogEntry, pause: () => boolean): boolean {
    this.pause = pause;
    try {
      this.apply(input);
    } finally {
      this.pause = undefined;
    }
    return this.interrupted === undefined;
  }

  /** Goes on with the input {@link applyPausable} paused; returns false when it paused again. */
  resume(pause: () => boolean): boolean {
    const at = this.interrupted;
    if (at === undefined || this.seeking) return true;
    this.interrupted = undefined;
    this.pause = pause;
    try {
      this.carryOut(this.entries[at.entry], at);
    } finally {
      this.pause = undefined;
    }
    if (this.interrupted !== undefined) return false;
    this.snapshot(undefined);
    return true;
  }

  /**
   * Positions the machine right after log entry `n` was produced: restores the latest snapshot taken
   * before entry `n` existed, then re-runs the recorded inputs until entry `n` is produced, stopping at
   * the first stop point after it (between two CPU runs inside `input:run`; after an input otherwise).
   * The log is unchanged; every entry the re-run produces is checked against it. `seek(log().length - 1)`
   * returns to the end, where new inputs may be applied again.
   *
   * @example
   * s.seek(120);
   * stateHash(s.machine); // the state right after entry 120
   */
  seek(n: number): Machine {
    if (this.closed) throw new KernelError('EINVAL', 'seek() needs an open session (close() stopped journaling)');
    if (!Number.isInteger(n) || n < 0 || n >= this.entries.length) {
      throw new KernelError('EINVAL', `seek(${n}): the log has entries 0..${this.entries.length - 1}`);
    }
    this.originSnapshot();
    const snap = this.snapshots.latestBefore(n) ?? this.snapshots.first()!;
    this.rerunFrom(snap, () => this.cursor > n, `seek(${n})`);
    return this.machine;
  }

  /**
   * Positions the machine at the first stop point after `from` where `stop` holds, re-running the
   * recorded inputs as {@link seek} does (every entry checked against the log): `from` is one of
   * {@link snapshotList}, restored first, or `'here'` to go on from where the machine is (after a seek
   * or a `seekWhere` that stopped). `stop` is asked at every stop point (after every CPU run and
   * between inputs) — with a step hook, after every instruction, so a debugger can stop anywhere.
   * Returns true when `stop` held, false when the log's inputs ran out first (the machine is then at
   * the end of the log).
   *
   * @example
   * // back to the latest snapshot before CPU 0 retired 5000 instructions, then forward to it
   * const snap = s.snapshotList().findLast((x) => x.machine.cpus[0].context.retired < 5000)!;
   * s.seekWhere(snap, () => s.machine.cpus[0].retired >= 5000);
   */
  seekWhere(from: SessionSnapshot | 'here', stop: () => boolean): boolean {
    if (this.closed) throw new KernelError('EINVAL', 'seekWhere() needs an open session (close() stopped journaling)');
    this.originSnapshot();
    if (from !== 'here' && !this.snapshots.all().includes(from)) {
      throw new KernelError('EINVAL', "seekWhere(): the snapshot is not one of this session's");
    }
    let held = false;
    this.rerunFrom(
      from === 'here' ? undefined : from,
      () => {
        held ||= stop();
        return held;
      },
      'seekWhere()',
    );
    // Inside an input: a stop held there (input:run's, or a handler's that returned 'stopped').
    return held || this.interrupted !== undefined;
  }

  /** Restores `snap` (or stays where the machine is), then re-runs the log until `stop` holds. */
  private rerunFrom(snap: SessionSnapshot | undefined, stop: () => boolean, what: string): void {
    let resume = this.interrupted;
    if (snap !== undefined) {
      this.machine.restore(snap.machine);
      this.cursor = snap.entries;
      this.inputs = snap.inputs;
      this.spawned.length = 0;
      for (const t of snap.spawned) this.spawned.push(t);
      this.lastRun = snap.lastRun;
      resume = snap.resume;
    }
    const fromEntries = this.cursor;
    this.interrupted = undefined;
    this.divergedAt = undefined;
    const retired = () => this.machine.cpus.reduce((sum, c) => sum + c.retired, 0);
    const before = retired();
    this.seeking = true;
    this.stop = stop;
    try {
      this.rerun(resume);
    } finally {
      this.seeking = false;
      this.stop = undefined;
    }
    this.lastSeek = Object.freeze({
      fromEntries,
      position: this.cursor,
      instructions: retired() - before,
    });
    if (this.divergedAt !== undefined) {
      throw new KernelError('BAD_LOG', `${what}: the re-run diverged from the log at entry ${this.divergedAt}`);
    }
  }

  /**
   * Takes a snapshot here, at the end of the log or inside the input a stop interrupted, whatever the
   * timeline's spacing, and keeps it for good (pinned): where a debugger's history starts, after the
   * inputs that set the run up (probe definitions), so going back there re-runs none of them.
   */
  snapshotHere(): SessionSnapshot {
    if (this.seeking || this.cursor !== this.entries.length) {
      throw new KernelError('EBUSY', 'snapshotHere() works at the end of the log, not after a seek into the past');
    }
    this.originSnapshot();
    const snap: SessionSnapshot = {
      entries: this.cursor,
      inputs: this.inputs,
      resume: this.interrupted,
      spawned: Object.freeze([...this.spawned]),
      lastRun: this.lastRun,
      clockNs: this.machine.clock(0),
      machine: this.machine.snapshot(),
      pinned: true,
    };
    this.snapshots.add(snap);
    return this.snapshots.all().at(-1)!;
  }

  /** Log entries produced on the machine's timeline (after a {@link seek}: fewer than in the log). */
  get position(): number {
    return this.cursor;
  }

  /** The snapshots the session keeps, oldest first (in memory only; at most `maxSnapshots`). */
  snapshotList(): readonly SessionSnapshot[] {
    return this.snapshots.all();
  }

  /** Convenience: start a workload and run until every started workload exited. */
  runWorkloads(argvs: readonly (readonly string[])[]): RunOutcome {
    const start = this.spawned.length;
    for (const argv of argvs) this.apply({ type: 'input:spawn', argv: [...argv] });
    this.apply({ type: 'input:run', pids: this.spawned.slice(start).map((t) => t.pid) });
    return this.lastRun!;
  }

  /** The log so far, as entries. */
  log(): readonly LogEntry[] {
    return this.entries;
  }

  /** The log file's contents. */
  text(): string {
    return logHeaderLine() + this.entries.map(encodeLogLine).join('');
  }

  /**
   * The log file as a complete recording of the run so far: {@link text} with the end record {@link end}
   * would journal (or has), while the session itself goes on taking inputs — for a run saved midway, as
   * the playground's download does.
   */
  completeText(): string {
    if (this.ended) return this.text();
    if (this.cursor !== this.entries.length || this.interrupted) {
      throw new KernelError('EBUSY', 'completeText(): the machine is in the past after seek()');
    }
    const end: LogEnd = {
      type: 'end',
      entries: this.entries.length,
      inputs: this.inputs,
      hash: this.hash(),
      stop: 'complete',
    };
    return this.text() + encodeLogLine(end);
  }

  /** Stops journaling caused events (and with it, seeking). */
  close(): void {
    this.closed = true;
    this.subscription?.unsubscribe();
  }

  /**
   * Decodes and checks a log file (event-log.md §1-§2): every entry against its schema (the kernel's,
   * and `schemas` for inputs of other packages) and the rules of the log. Throws on a corrupt log; an
   * incomplete one (no end record) is returned with `end` undefined.
   */
  static readLog(log: Uint8Array, logName: string, schemas?: ReadonlyMap<string, EntrySchema>): ValidLog {
    return validateLog(decodeLog(log, logName), logName, schemas);
  }

  /**
   * Replays a recorded log: boots a machine with the recorded configuration (the image must be the one
   * recorded, checked by SHA-256), lets `before` add inputs of its own at time zero (retroactive probes),
   * then applies every recorded input in order. With `verify` (and no inputs added by `before`), every
   * entry the replay journals must be the recorded one — checkpoints and their state hashes, caused
   * events, the end record — and a difference is an error naming the entry. An incomplete log (no end
   * record) is refused unless `allowIncomplete`; it then replays up to its last checkpoint.
   */
  static replay(
    log: Uint8Array,
    logName: string,
    options: Omit<SessionOptions, 'cpus' | 'quantum' | 'panicOnOops'> & {
      readonly verify?: boolean;
      readonly handlers?: ReadonlyMap<string, InputHandler>;
      /** Schemas of the inputs `handlers` apply. */
      readonly schemas?: ReadonlyMap<string, EntrySchema>;
      readonly before?: (session: Session) => void;
      /**
       * Stop at the first stop point after entry `n` of the replaying session's own log (the recorded
       * log's numbering when `before` adds no inputs), as {@link seek} does: for inspection.
       */
      readonly stopAfterEntry?: number;
      /** Replay a log without its end record, up to its last whole input. */
      readonly allowIncomplete?: boolean | undefined;
    },
  ): Session {
    const valid = Session.readLog(log, logName, options.schemas);
    const entries = valid.entries;
    if (!valid.end && !options.allowIncomplete) throw new KernelError('BAD_LOG', incompleteLogMessage(valid, logName));
    const config = entries[0];
    if (config.imageSha256 !== sha256(options.image)) {
      throw new KernelError(
        'BAD_LOG',
        `${logName} was recorded with kernel image ${config.image} (sha256 ${String(config.imageSha256).slice(0, 12)}…); ${options.imageName} differs — pass the image it was recorded with (--image)`,
      );
    }
    const session = new Session(
      {
        ...options,
        cpus: config.cpus as number,
        quantum: config.quantum as number,
        panicOnOops: config.panicOnOops as boolean,
      },
      options.programs,
    );
    for (const [type, h] of options.handlers ?? []) session.handle(type, h);
    options.before?.(session);
    const offset = session.inputs;
    const verify = options.verify ?? true;
    if (verify && offset === 0) session.expectLog(entries);
    const stopAt = options.stopAfterEntry;
    if (stopAt !== undefined) session.stop = () => session.cursor > stopAt;
    let stopped = false;
    for (let n = 0; n < valid.replayable; n++) {
      const e = entries[n];
      if (e.type.startsWith('input:')) {
        if (session.stop?.()) {
          stopped = true;
          break;
        }
        session.apply(e);
        if (session.interrupted) {
          stopped = true;
          break;
        }
        if (verify && offset === 0) session.verifyReplayed(logName);
      } else if (e.type === 'checkpoint' && verify && offset > 0) {
        const ours = session.entries.findLast((x) => x.type === 'checkpoint') as Checkpoint | undefined;
        const theirs = e as Checkpoint;
        if (!ours || ours.input !== theirs.input + offset || ours.hash !== theirs.hash) {
          throw new KernelError(
            'BAD_LOG',
            `${logName}: replay diverged at input #${theirs.input} (state hash differs)`,
          );
        }
      }
    }
    if (!stopped && valid.end) {
      if (verify && session.hash() !== valid.end.hash) {
        throw new KernelError('BAD_LOG', `${logName}: replay diverged at the end record (final state hash differs)`);
      }
      if (offset === 0 && (options.recordEvents ?? true)) {
        session.end(valid.end.stop);
        if (verify) session.verifyReplayed(logName);
      }
    }
    session.stop = undefined;
    return session;
  }

  /**
   * Checks a replay against the recorded log from here on: every entry this session journals, and
   * every event its machine publishes even when events are not journaled (`recordEvents: false`), is
   * compared in order with the next recorded entry; {@link verifyReplayed} reports the first
   * difference. For a session whose `before` added no inputs, called before the first input.
   */
  expectLog(recorded: readonly LogEntry[]): void {
    this.mirror = { entries: recorded, at: this.cursor };
  }

  /**
   * Throws if what this replaying session produced since {@link expectLog} differs from the recorded
   * log, naming the first differing recorded entry.
   */
  verifyReplayed(logName: string): void {
    const d = this.mirror?.diverged;
    if (!d) return;
    const theirs = this.mirror!.entries[d.n];
    const ours = d.ours;
    const what =
      theirs === undefined
        ? `the replay goes on past the log's last entry with ${ours.type}`
        : ours.type === 'checkpoint' && theirs.type === 'checkpoint'
          ? 'the state hash differs'
          : theirs.type === ours.type
            ? `the recorded ${theirs.type} differs from the replayed one`
            : `recorded ${theirs.type}, replayed ${ours.type}`;
    throw new KernelError('BAD_LOG', `${logName}: replay diverged at entry ${d.n} (line ${d.n + 2}): ${what}`);
  }

  /** Compares one produced entry with the next recorded one. */
  private compareWithMirror(entry: LogEntry): void {
    const m = this.mirror!;
    if (m.diverged) return;
    const n = m.at++;
    const theirs = m.entries[n];
    if (theirs === undefined || encodeLogLine(theirs) !== encodeLogLine(entry)) m.diverged = { n, ours: entry };
  }

  /** Journals an entry, or, while a seek re-runs the past, checks it against the one in the log. */
  private produce(entry: LogEntry): void {
    if (this.cursor < this.entries.length) {
      const same = encodeLogLine(entry) === encodeLogLine(this.entries[this.cursor]);
      if (!same && this.divergedAt === undefined) this.divergedAt = this.cursor;
    } else {
      if (this.mirror) this.compareWithMirror(entry);
      this.entries.push(entry);
      this.sink?.write(encodeLogLine(entry));
    }
    this.cursor++;
  }

  /** Journals an input, carries it out and journals its checkpoint; then snapshots. */
  private execute(input: LogEntry): void {
    const at: InputPosition = { entry: this.cursor, input: this.inputs++ };
    this.produce(input);
    this.carryOut(input, at);
    this.snapshot(undefined);
  }

  /** Runs an input's handler; its checkpoint follows unless a stop interrupted it. */
  private carryOut(input: LogEntry, at: InputPosition): void {
    const handler = this.handlers.get(input.type);
    if (!handler) throw new KernelError('BAD_LOG', `no handler for input type '${input.type}'`);
    this.current = at;
    try {
      if (handler(input, this) === 'stopped') this.interrupted = at;
    } finally {
      this.current = undefined;
      if (!this.interrupted) this.produce(this.checkpoint(at.input));
    }
  }

  /**
   * Re-runs recorded inputs from the restored position until the stop holds: first the rest of the
   * `input:run` the snapshot was taken in, then input after input. An input that failed when recorded
   * fails again; its checkpoint still tells whether the state is the recorded one.
   */
  private rerun(resume: InputPosition | undefined): void {
    const guard = (fn: () => void) => {
      try {
        fn();
      } catch (e) {
        if (!(e instanceof KernelError)) throw e;
      }
    };
    if (resume !== undefined && !this.stop?.()) guard(() => this.carryOut(this.entries[resume.entry], resume));
    while (!this.interrupted && this.divergedAt === undefined && this.cursor < this.entries.length && !this.stop?.()) {
      const e = this.entries[this.cursor];
      if (!e.type.startsWith('input:')) {
        this.divergedAt = this.cursor;
        break;
      }
      guard(() => this.execute(e));
    }
  }

  /** The first snapshot, taken before the first input (after other packages set themselves up). */
  private originSnapshot(): void {
    if (this.snapshots.first() === undefined) this.snapshot(undefined);
  }

  /**
   * At a stop point on the machine's timeline (a round boundary of `input:run`, the end of an input):
   * a snapshot when the timeline wants one at this virtual time, nothing otherwise.
   */
  private snapshot(resume: InputPosition | undefined): void {
    if (this.seeking || this.interrupted || this.cursor !== this.entries.length) return;
    const clockNs = this.machine.clock(0);
    if (!this.snapshots.wants(clockNs)) return;
    this.snapshots.add({
      entries: this.cursor,
      inputs: this.inputs,
      resume,
      spawned: Object.freeze([...this.spawned]),
      lastRun: this.lastRun,
      clockNs,
      machine: this.machine.snapshot(),
    });
  }

  private checkpoint(input: number): Checkpoint {
    const m = this.machine;
    return {
      type: 'checkpoint',
      input,
      clocks: m.cpus.map((_, c) => m.clock(c)),
      hash: this.hash(),
    };
  }

  /** The stop condition of `input:run` with `pids` (the first task spawned with each pid). */
  private allExited(pids: readonly number[]): () => boolean {
    const byPid = new Map<number, Task>();
    for (const t of this.spawned) if (!byPid.has(t.pid)) byPid.set(t.pid, t);
    return untilAllExited(pids.map((pid) => byPid.get(pid)));
  }

  /** The state hash of the machine, with what {@link hashAlso} added. */
  hash(): string {
    const machine = stateHash(this.machine);
    if (this.hashed.length === 0) return machine;
    const h = createHash('sha256').update(machine);
    for (const [name, describe] of this.hashed) h.update(`\n${name}\0${describe()}`);
    return h.digest('hex');
  }

  private withProgramDigest(input: LogEntry): LogEntry {
    const argv = input.argv as string[];
    const bytes = this.programs(argv[0] ?? '');
    return bytes && input.sha256 === undefined ? { ...input, sha256: sha256(bytes) } : input;
  }
}

/** Says a log is incomplete, and where the part that replays ends. */
export function incompleteLogMessage(log: ValidLog, logName: string): string {
  const last = log.replayable - 1;
  return `${logName}: incomplete log: it has no end record (the recording was cut off); its ${log.inputs} whole input${log.inputs === 1 ? '' : 's'} end${log.inputs === 1 ? 's' : ''} at entry ${last} of ${log.entries.length}`;
}
