import { createHash } from 'node:crypto';
import type { Subscription } from 'rxjs';
import { KernelError } from '../kernel-error.js';
import { decodeLog, encodeLogLine, type LogEntry, logHeaderLine } from '../log/log-codec.js';
import { Machine, type RunOutcome } from '../machine/machine.js';
import type { Task } from '../sched/task.js';
import { stateHash } from './state-hash.js';

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
}

/** Applies one input of a type another package defined (probe definitions, tracefs writes, …). */
export type InputHandler = (input: LogEntry, session: Session) => void;

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
  /** Tasks started by `input:spawn`, in order. */
  readonly spawned: Task[] = [];
  /** Outcome of the last `input:run`. */
  lastRun: RunOutcome | undefined;

  private constructor(
    options: SessionOptions,
    private readonly programs: (name: string) => Uint8Array | undefined,
  ) {
    this.config = Object.freeze({
      type: 'config',
      image: options.imageName,
      imageSha256: sha256(options.image),
      cpus: options.cpus ?? 2,
      quantum: options.quantum ?? 10_000,
      panicOnOops: options.panicOnOops ?? false,
    });
    this.entries.push(this.config);
    this.machine = Machine.boot({
      image: options.image,
      imageName: options.imageName,
      cpus: this.config.cpus,
      quantum: this.config.quantum,
      panicOnOops: this.config.panicOnOops,
      programs,
    });
    if (options.recordEvents ?? true) {
      this.subscription = this.machine.events$.subscribe((e) => this.entries.push({ ...e } as LogEntry));
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
      const until = pids
        ? () => pids.every((pid) => this.spawned.find((t) => t.pid === pid)?.exited ?? true)
        : undefined;
      this.lastRun = this.machine.run({ until, deadlineNs: i.deadlineNs as number | undefined });
    });
    this.handlers.set('input:insmod', (i) => {
      this.machine.modules.load(Buffer.from(i.data as string, 'base64'), i.name as string);
    });
    this.handlers.set('input:rmmod', (i) => this.machine.modules.unload(i.name as string));
  }

  /** Boots a machine for a new run. */
  static create(options: SessionOptions): Session {
    return new Session(options, options.programs);
  }

  /** Registers how inputs of `type` are applied (e.g. `input:kprobe_events` by the tracer). */
  handle(type: string, handler: InputHandler): void {
    this.handlers.set(type, handler);
  }

  /**
   * Applies an external input: journals it, carries it out, then journals a checkpoint with the state
   * hash. An input of an unknown type is refused before anything is journaled.
   */
  apply(input: LogEntry): void {
    const handler = this.handlers.get(input.type);
    if (!handler) throw new KernelError('BAD_LOG', `no handler for input type '${input.type}'`);
    const recorded = input.type === 'input:spawn' ? this.withProgramDigest(input) : input;
    this.entries.push(recorded);
    const index = this.inputs++;
    try {
      handler(recorded, this);
    } finally {
      this.entries.push(this.checkpoint(index));
    }
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

  /** Stops journaling caused events. */
  close(): void {
    this.subscription?.unsubscribe();
  }

  /**
   * Replays a recorded log: boots a machine with the recorded configuration (the image must be the one
   * recorded, checked by SHA-256), lets `before` add inputs of its own at time zero (retroactive probes),
   * then applies every recorded input in order. With `verify`, every checkpoint's state hash must match
   * the recorded one — a divergence is an error naming the input.
   */
  static replay(
    log: Uint8Array,
    logName: string,
    options: Omit<SessionOptions, 'cpus' | 'quantum' | 'panicOnOops'> & {
      readonly verify?: boolean;
      readonly handlers?: ReadonlyMap<string, InputHandler>;
      readonly before?: (session: Session) => void;
    },
  ): Session {
    const entries = decodeLog(log, logName);
    const config = entries[0];
    if (config?.type !== 'config') throw new KernelError('BAD_LOG', `${logName}: corrupt (no config entry first)`);
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
    for (const e of entries) {
      if (e.type.startsWith('input:')) {
        session.apply(e);
      } else if (e.type === 'checkpoint' && verify) {
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
    return session;
  }

  private checkpoint(input: number): Checkpoint {
    const m = this.machine;
    return {
      type: 'checkpoint',
      input,
      clocks: m.cpus.map((_, c) => m.clock(c)),
      hash: stateHash(m),
    };
  }

  private withProgramDigest(input: LogEntry): LogEntry {
    const argv = input.argv as string[];
    const bytes = this.programs(argv[0] ?? '');
    return bytes && input.sha256 === undefined ? { ...input, sha256: sha256(bytes) } : input;
  }
}
