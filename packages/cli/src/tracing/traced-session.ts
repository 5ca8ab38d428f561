import { basename } from 'node:path';
import { ElfError, type ElfFile, MemoryError } from '@int3/cpu';
import {
  boolean,
  type EntrySchema,
  type InputHandler,
  KernelError,
  type LogEntry,
  type LogSink,
  readSampleImage,
  SAMPLE_IMAGE_PATH,
  Session,
  sampleProgram,
  text,
} from '@int3/kernel';
import { Kprobes } from '@int3/kprobes';
import { TraceFs } from '@int3/tracer-plugins';
import { loadImage } from '../call/load-image.js';
import { CliError } from '../cli-error.js';
import { GDB_INPUT_SCHEMAS, GDB_RUN, GDB_WRITE, gdbRunHandler, gdbWriteHandler } from '../gdb/live/gdb-inputs.js';
import { definedEvents } from './tracefs-files.js';
import { TRACER_START, TRACER_START_SCHEMA, TRACERS_STOP } from './tracer-inputs.js';

/** The session input that replays a tracefs write: `echo TEXT > PATH` (or `>>` with `append`). */
export const TRACEFS_WRITE = 'input:tracefs-write';

/**
 * The session input that switches the kretprobe booster (`on`: the trampoline runs the handlers without
 * a trap, as x86 since 2.6.25; off: its own int3 kprobe, as 2.6.12). No file of Linux's sets this: a
 * kernel either has the booster or not, and the demo shows both.
 */
export const KRETPROBE_BOOSTER = 'input:kretprobe-booster';

/** The schemas of the inputs the tracer adds to a log (event-log.md §2 points here). */
export const TRACER_INPUT_SCHEMAS: ReadonlyMap<string, EntrySchema> = new Map<string, EntrySchema>([
  [TRACEFS_WRITE, { required: { path: text(4096), text: text(1024 * 1024), append: boolean } }],
  [KRETPROBE_BOOSTER, { required: { on: boolean } }],
  [TRACER_START, TRACER_START_SCHEMA],
  ...GDB_INPUT_SCHEMAS,
  [TRACERS_STOP, { required: {} }],
]);

/** A session with kprobes and a tracefs on its machine; every tracefs write goes through the log. */
export interface TracedSession {
  readonly session: Session;
  readonly kprobes: Kprobes;
  readonly fs: TraceFs;
}

/** The kernel image a command boots: `--image` or the sample `vmlinux`. */
export interface KernelImageFile {
  readonly bytes: Uint8Array;
  readonly name: string;
  /**
   * A freestanding ELF that `--image` named instead of a kernel: the sample kernel boots and the image
   * is linked beside it as the module `name` (its functions are probed and called as module text).
   */
  readonly linked?: { readonly name: string; readonly file: ElfFile };
}

/**
 * Reads what `--image` names, with the loader errors of `int3 call` (no such file, not ELF, truncated,
 * not x86-64, ET_REL): an int3 kernel image (it has `start_kernel` and the host-call gates) boots;
 * any other ET_EXEC image is linked beside the sample kernel.
 */
export function readKernelImage(path: string | undefined, command: string): KernelImageFile {
  if (path === undefined) return sampleKernel(command);
  const image = loadImage(path, command);
  const has = (name: string) => image.file.symbols.some((s) => s.name === name && s.shndx !== 0);
  if (has('start_kernel') && has('__hostcall_start')) return { bytes: image.bytes, name: basename(path) };
  return { ...sampleKernel(command), linked: { name: linkedImageName(path), file: image.file } };
}

function sampleKernel(command: string): KernelImageFile {
  try {
    return { bytes: readSampleImage(), name: basename(SAMPLE_IMAGE_PATH) };
  } catch (error) {
    const reason = error instanceof KernelError ? error.message : (error as Error).message;
    throw new CliError('usage', `cannot read kernel image: ${reason}`, command);
  }
}

/** How {@link createTracedSession} journals. */
export interface TracedSessionOptions {
  /**
   * Journal the events the inputs cause (traps, die notifications, task events, printk) as well as
   * the inputs and checkpoints: for a log that is written (`record`), or numbered as a recorded one
   * (`replay --at`). Default false for a new session (a command that never writes its log keeps no
   * event of a long run in memory), true for a replay.
   */
  readonly recordEvents?: boolean;
  /** Where a new session's log is written as it grows (`record`). */
  readonly sink?: LogSink | undefined;
  /** Replay a log without its end record up to its last whole input. */
  readonly allowIncomplete?: boolean;
  /** The command whose `--help` a boot error points at. */
  readonly command?: string;
  /** Least virtual time between two session snapshots (`SessionOptions.snapshotEveryNs`); a debugger's seeks re-run at most that much. */
  readonly snapshotEveryNs?: number;
  /** Most snapshots kept (`SessionOptions.maxSnapshots`). */
  readonly maxSnapshots?: number;
}

/** The module name of a linked image: its file name without extension, as a C identifier. */
export function linkedImageName(path: string): string {
  const stem = basename(path)
    .replace(/\.[^.]*$/, '')
    .replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(stem) ? stem : `_${stem}`;
}

/**
 * Boots a new session on `cpus` CPUs with kprobes and a tracefs whose writes are session inputs.
 *
 * @example
 * const t = createTracedSession(readKernelImage(undefined, 'trace'), 2);
 * applyTracefsWrite(t, 'kprobe_events', 'p:open do_sys_open', true);
 */
export function createTracedSession(
  image: KernelImageFile,
  cpus: number,
  options: TracedSessionOptions = {},
): TracedSession {
  let session: Session;
  try {
    session = Session.create({
      image: image.bytes,
      imageName: image.name,
      cpus,
      programs: sampleProgram,
      recordEvents: options.recordEvents ?? false,
      sink: options.sink,
      ...(options.snapshotEveryNs === undefined ? {} : { snapshotEveryNs: options.snapshotEveryNs }),
      ...(options.maxSnapshots === undefined ? {} : { maxSnapshots: options.maxSnapshots }),
    });
  } catch (error) {
    if (error instanceof KernelError || error instanceof ElfError || error instanceof MemoryError)
      throw new CliError('usage', `cannot boot ${image.name}: ${error.message}`, options.command);
    throw error;
  }
  const traced = attach(session);
  if (image.linked !== undefined) {
    try {
      session.machine.modules.loadLinked(image.linked.file, image.linked.name);
    } catch (error) {
      if (error instanceof KernelError) throw new CliError('usage', `bad image: ${error.message}`, options.command);
      throw error;
    }
  }
  session.handle(
    TRACEFS_WRITE,
    tracefsWriteHandler(() => traced.fs),
    TRACER_INPUT_SCHEMAS.get(TRACEFS_WRITE),
  );
  session.handle(
    KRETPROBE_BOOSTER,
    kretprobeBoosterHandler(() => traced.kprobes),
    TRACER_INPUT_SCHEMAS.get(KRETPROBE_BOOSTER),
  );
  return traced;
}

/**
 * Replays a recorded log on a new machine with kprobes and a tracefs, up to the first stop point after
 * entry `stopAfterEntry` (`Session.replay`'s), checking every state hash on the way: -1 stops before
 * the first input, where the caller adds probes and tracers and then applies the inputs itself
 * ({@link replayRecordedInputs}). The replaying session journals caused events as the recording did
 * (so its entries are numbered as the log's) unless `recordEvents` is false. A corrupt or foreign log
 * is a usage error.
 *
 * @see Session.replay
 */
export function replayTracedSession(
  log: Uint8Array,
  logName: string,
  image: KernelImageFile,
  stopAfterEntry: number,
  options: TracedSessionOptions = {},
): TracedSession {
  let traced: TracedSession | undefined;
  const handlers = new Map<string, InputHandler>([
    [TRACEFS_WRITE, tracefsWriteHandler(() => traced!.fs)],
    [KRETPROBE_BOOSTER, kretprobeBoosterHandler(() => traced!.kprobes)],
    [GDB_RUN, gdbRunHandler(() => traced!.session.machine)],
    [GDB_WRITE, gdbWriteHandler(() => traced!.session.machine)],
    [
      TRACER_START,
      () => {
        // Replaced by TracerInputs where a tracer host exists (replayRecordedInputs); --at has none.
        throw new KernelError('BAD_LOG', 'the run started tracers (--tracer, --plugin): --at cannot replay them');
      },
    ],
  ]);
  try {
    Session.replay(log, logName, {
      image: image.bytes,
      imageName: image.name,
      programs: sampleProgram,
      handlers,
      schemas: TRACER_INPUT_SCHEMAS,
      stopAfterEntry,
      recordEvents: options.recordEvents ?? true,
      allowIncomplete: options.allowIncomplete,
      ...(options.snapshotEveryNs === undefined ? {} : { snapshotEveryNs: options.snapshotEveryNs }),
      ...(options.maxSnapshots === undefined ? {} : { maxSnapshots: options.maxSnapshots }),
      before: (session) => {
        traced = attach(session);
      },
    });
  } catch (error) {
    if (error instanceof KernelError)
      throw new CliError('usage', `cannot replay ${logName}: ${error.message}`, 'replay');
    throw error;
  }
  return traced!;
}

/** Applies one tracefs write as a session input (journaled, then carried out). */
export function applyTracefsWrite(t: TracedSession, path: string, text: string, append: boolean): void {
  t.session.apply({ type: TRACEFS_WRITE, path, text, append });
}

function attach(session: Session): TracedSession {
  const kprobes = Kprobes.init(session.machine);
  const fs = new TraceFs(session.machine, kprobes);
  session.hashAlso('tracefs', () => tracerState(fs));
  return { session, kprobes, fs };
}

/**
 * What decides the trace printed besides the machine: the probe definitions, and per event whether
 * it is enabled, its filter and its trigger (the files a reader of tracefs would compare).
 */
export function tracerState(fs: TraceFs): string {
  let out = fs.read('kprobe_events');
  for (const e of definedEvents(fs)) {
    for (const file of ['enable', 'filter', 'trigger']) {
      const path = `events/${e.group}/${e.name}/${file}`;
      try {
        out += `${path}:${fs.read(path)}`;
      } catch {
        // an event without this file (no triggers here) has nothing of it to compare
      }
    }
  }
  return out;
}

/** Switches the kretprobe booster as a session input (journaled, then carried out). */
export function applyKretprobeBooster(t: TracedSession, on: boolean): void {
  t.session.apply({ type: KRETPROBE_BOOSTER, on });
}

function kretprobeBoosterHandler(kprobes: () => Kprobes): InputHandler {
  return (input: LogEntry) => {
    kprobes().config.kretprobeBooster = input.on === true;
  };
}

function tracefsWriteHandler(fs: () => TraceFs): InputHandler {
  return (input: LogEntry) => {
    fs().write(input.path as string, input.text as string, { append: input.append === true });
  };
}
