import type { Machine } from '@int3/kernel';
import type { Kprobes } from '@int3/kprobes';
import { ErrorLog } from '../probe-events/error-log.js';
import { MAX_BUFFER_SIZE_KB, TraceBuffer } from '../ring-buffer/trace-buffer.js';
import { escapeControls } from '../trace-output/escape-control.js';
import { TraceFormatter } from '../trace-output/trace-formatter.js';
import { KERNEL_STACK_EVENT, TRACE_STACK } from '../triggers/kernel-stack-event.js';
import { KernelStackWriter } from '../triggers/kernel-stack-writer.js';
import { SnapshotBuffer, snapshotHelp } from '../triggers/snapshot-buffer.js';
import type { NamedHist, TriggerContext } from '../triggers/trigger-context.js';
import { machineTracerView } from '../view/machine-tracer-view.js';
import type { MachineView } from '../view/machine-view.js';
import { eventsNode } from './events-dir.js';
import { KprobeEvents } from './kprobe-events.js';
import { kprobeProfile } from './kprobe-profile.js';
import { MachineFetchContext } from './machine-fetch-context.js';
import { machineProbeResolver, machineSymbolLookup } from './machine-probe-resolver.js';
import { parseUlong } from './parse-switch.js';
import { perCpuNode } from './per-cpu-dir.js';
import type { ProbeSink } from './probe-sink.js';
import { TraceFsError } from './trace-fs-error.js';
import { dir, file, streamFile, type TraceFsNode } from './trace-fs-node.js';
import { TRACEFS_README } from './trace-fs-readme.js';
import { traceFsSnapshotProvider } from './trace-fs-snapshot.js';

/** Where tracefs is mounted. */
export const TRACEFS_ROOT = '/sys/kernel/tracing';
/** The older mount point under debugfs, accepted as an alias. */
const DEBUGFS_TRACING = '/sys/kernel/debug/tracing';
/** The kprobes debugfs directory. */
export const DEBUGFS_KPROBES = '/sys/kernel/debug/kprobes';
/** The `debug` sysctl directory (`/proc/sys/debug/kprobes-optimization` lives there in Linux). */
const PROC_SYS_DEBUG = '/proc/sys/debug';

const ROOT_FILES = [
  'README',
  'available_events',
  'buffer_size_kb',
  'buffer_total_size_kb',
  'error_log',
  'events',
  'kprobe_events',
  'kprobe_profile',
  'per_cpu',
  'saved_cmdlines',
  'snapshot',
  'trace',
  'trace_pipe',
  'tracing_on',
];

/** Options for {@link TraceFs.write}. */
export interface TraceFsWriteOptions {
  /** `>>` (true) rather than `>` (false, the default: the file is opened with O_TRUNC). */
  readonly append?: boolean;
}

/**
 * The tracefs of one machine, `/sys/kernel/tracing`, with the kernel's semantics for the kprobe event
 * tracer: `kprobe_events`, `events/`, `trace`, `trace_pipe`, `kprobe_profile`, `error_log`,
 * `tracing_on`, `buffer_size_kb`, `README`, `available_events`; plus debugfs
 * `/sys/kernel/debug/kprobes/{list,enabled,blacklist}`. Paths may be absolute or relative to the
 * tracefs root. Failures throw {@link TraceFsError} with the kernel's errno name. Its state is part
 * of the machine's snapshots (provider `tracefs`): restoring one puts tracefs back as it was then.
 * One tracefs per machine.
 *
 * @see kernel/trace/trace.c tracer_init_tracefs(), kernel/trace/trace_kprobe.c init_kprobe_trace()
 * @example
 * const fs = new TraceFs(m, Kprobes.init(m));
 * fs.write('kprobe_events', 'p:myprobe do_sys_open dfd=%di\n');
 * fs.write('events/kprobes/myprobe/enable', '1');
 * m.spawn(['cat', '/etc/motd']); m.run();
 * fs.read('trace');
 */
export class TraceFs {
  /** @internal The tracefs model's own parts, for this package's tracers; others read the files: `fs.read(…)`. */
  readonly buffer: TraceBuffer;
  readonly errorLog = new ErrorLog();
  /** @internal The tracefs model's own parts, for this package's tracers; others read the files: `fs.read(…)`. */
  readonly kprobeEvents: KprobeEvents;
  /**
   * The `snapshot` buffer that `echo 1 > snapshot` and `snapshot` triggers swap with the main one.
   * @internal The tracefs model's own parts, for this package's tracers; others read the files: `fs.read(…)`.
   */
  readonly snapshot: SnapshotBuffer;
  /**
   * What the tracefs, and through its `TracerHost` every tracer, sees of the machine.
   * @internal The tracefs model's own parts, for this package's tracers; others read the files: `fs.read(…)`.
   */
  readonly view: MachineView;
  readonly #formatter: TraceFormatter;
  readonly #cmdlines = new Map<number, string>();

  constructor(m: Machine, kprobes: Kprobes) {
    const view = machineTracerView(m, kprobes);
    this.view = view;
    const now = () => view.clock.now(0);
    this.buffer = new TraceBuffer({ cpus: view.nrCpus, clock: now });
    const sink: ProbeSink = {
      view,
      contexts: Array.from({ length: view.nrCpus }, () => new MachineFetchContext(view)),
      buffer: this.buffer,
      cmdlines: this.#cmdlines,
    };
    const { symbols } = view;
    const formatContext = {
      // Module symbol names come from a loaded file: escaped like any guest text.
      symbolize: (a: bigint) => (symbols.lookup(a) ? escapeControls(symbols.format(a)) : undefined),
    };
    this.snapshot = new SnapshotBuffer(this.buffer);
    const namedHists = new Map<string, NamedHist>();
    const triggers: TriggerContext = {
      buffer: this.buffer,
      snapshot: this.snapshot,
      stack: new KernelStackWriter(view, this.buffer),
      findEvent: (system, name) => {
        const ev = this.kprobeEvents.event(system, name);
        return ev && { group: ev.group, name: ev.name, file: ev.file, fields: ev.type.fields, triggers: ev.triggers };
      },
      errorLog: this.errorLog,
      cmdlines: this.#cmdlines,
      formatContext,
      namedHists,
      now,
    };
    this.kprobeEvents = new KprobeEvents({
      view,
      resolver: machineProbeResolver(view),
      lookup: machineSymbolLookup(view),
      errorLog: this.errorLog,
      sink,
      now,
      triggers,
    });
    this.#formatter = new TraceFormatter({
      eventType: (id) => (id === TRACE_STACK ? KERNEL_STACK_EVENT : this.kprobeEvents.eventById(id)?.type),
      comm: (pid) => this.#cmdlines.get(pid),
      formatContext,
    });
    m.kernel.registerSnapshotProvider(
      'tracefs',
      traceFsSnapshotProvider({
        buffer: this.buffer,
        snapshot: this.snapshot,
        errorLog: this.errorLog,
        kprobeEvents: this.kprobeEvents,
        cmdlines: this.#cmdlines,
        namedHists,
      }),
    );
  }

  /** `saved_cmdlines`: pid → comm of every task that hit an event. @see trace_find_cmdline() */
  get savedCmdlines(): ReadonlyMap<number, string> {
    return this.#cmdlines;
  }

  /** Reads a file. ENOENT if it does not exist, EISDIR for a directory. */
  read(path: string): string {
    const node = this.#node(path);
    if (node.kind === 'dir') throw new TraceFsError('EISDIR', `${path} is a directory`);
    return node.read();
  }

  /**
   * Reads a file as a stream of chunks whose concatenation is what {@link read} returns: `trace` and
   * `trace_pipe` (and their `per_cpu` forms) format the buffer chunk by chunk, so a huge buffer never
   * becomes one string; `trace_pipe` consumes records as chunks are taken. Other files give one chunk.
   * Errors (ENOENT, EISDIR) are thrown by this call, not by the iteration.
   *
   * @example
   * for (const chunk of fs.readChunks('trace')) process.stdout.write(chunk);
   */
  readChunks(path: string): Iterable<string> {
    const node = this.#node(path);
    if (node.kind === 'dir') throw new TraceFsError('EISDIR', `${path} is a directory`);
    return node.chunks ? node.chunks() : [node.read()];
  }

  /** Writes a file (`>` by default, `>>` with `append`). */
  write(path: string, text: string, options: TraceFsWriteOptions = {}): void {
    const node = this.#node(path);
    if (node.kind === 'dir') throw new TraceFsError('EISDIR', `${path} is a directory`);
    if (!node.write) throw new TraceFsError('EACCES', `${path} is read-only`);
    node.write(text, options.append ?? false);
  }

  /** Lists a directory. ENOENT if it does not exist, ENOTDIR for a file. */
  ls(path: string): string[] {
    const node = this.#node(path);
    if (node.kind === 'file') throw new TraceFsError('ENOTDIR', `${path} is not a directory`);
    return node.entries();
  }

  #node(path: string): TraceFsNode {
    const node = this.#lookup(path);
    if (!node) throw new TraceFsError('ENOENT', `${path}: no such file or directory`);
    return node;
  }

  /**
   * Resolves a path through the mount table: the kprobes debugfs directory, the `debug` sysctls, and
   * tracefs at its mount point or the older debugfs alias (relative paths are tracefs paths).
   */
  #lookup(path: string): TraceFsNode | undefined {
    const clean = path.replace(/\/+$/, '');
    for (const [mount, resolve] of this.#mounts) {
      if (clean === mount) return resolve('');
      if (clean.startsWith(`${mount}/`)) return resolve(clean.slice(mount.length + 1));
    }
    return clean.startsWith('/') ? undefined : this.#tracefs(clean);
  }

  readonly #mounts: readonly (readonly [string, (rel: string) => TraceFsNode | undefined])[] = [
    [DEBUGFS_KPROBES, (rel) => this.#kprobesDebugfs(rel)],
    [PROC_SYS_DEBUG, (rel) => this.#procSysDebug(rel)],
    [TRACEFS_ROOT, (rel) => this.#tracefs(rel)],
    [DEBUGFS_TRACING, (rel) => this.#tracefs(rel)],
  ];

  #tracefs(rel: string): TraceFsNode | undefined {
    const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.length === 0) return dir(() => ROOT_FILES.slice());
    if (parts[0] === 'events') return eventsNode(this.view.kprobes, this.kprobeEvents, parts.slice(1));
    if (parts[0] === 'per_cpu') return perCpuNode(this.buffer, this.#formatter, parts.slice(1));
    return parts.length === 1 ? this.#rootFile(parts[0]) : undefined;
  }

  #rootFile(name: string): TraceFsNode | undefined {
    const buf = this.buffer;
    switch (name) {
      case 'kprobe_events':
        return file(
          () => this.kprobeEvents.show(),
          (t, append) => this.kprobeEvents.write(t, append),
        );
      case 'kprobe_profile':
        return file(() => kprobeProfile(this.kprobeEvents.probes));
      case 'trace':
        return streamFile(
          () => this.#formatter.traceChunks(buf),
          (_t, append) => {
            if (!append) buf.reset();
          },
        );
      case 'snapshot':
        return streamFile(
          () => this.#snapshotChunks(),
          (t) => this.snapshot.write(parseUlong(t, 'snapshot')),
        );
      case 'trace_pipe':
        // Non-blocking: an empty buffer reads as '' at once (the kernel's read blocks without O_NONBLOCK).
        return streamFile(() => this.#formatter.pipeChunks(buf));
      case 'saved_cmdlines':
        return file(() => [...this.#cmdlines].map(([pid, comm]) => `${pid} ${comm}\n`).join(''));
      case 'error_log':
        return file(
          () => this.errorLog.show(),
          (_t, append) => {
            if (!append) this.errorLog.clear();
          },
        );
      case 'tracing_on':
        return file(
          () => (buf.tracingOn ? '1\n' : '0\n'),
          (t) => {
            buf.tracingOn = parseUlong(t, 'tracing_on') !== 0;
          },
        );
      case 'buffer_size_kb':
        return file(
          () => `${buf.bufferSizeKb}\n`,
          (t) => {
            const kb = parseUlong(t, 'buffer_size_kb');
            if (kb === 0) throw new TraceFsError('EINVAL', 'buffer_size_kb: must be at least 1');
            if (kb > MAX_BUFFER_SIZE_KB) {
              throw new TraceFsError('ENOMEM', `buffer_size_kb: at most ${MAX_BUFFER_SIZE_KB} KiB per CPU`);
            }
            buf.resize(kb);
          },
        );
      case 'buffer_total_size_kb':
        return file(() => `${buf.bufferTotalSizeKb}\n`);
      case 'available_events':
        return file(() => this.kprobeEvents.events.map((e) => `${e.group}:${e.name}\n`).join(''));
      case 'README':
        return file(() => TRACEFS_README);
      default:
        return undefined;
    }
  }

  /**
   * `snapshot`: the snapshot buffer as `trace` prints the main one; while it holds nothing, the
   * tracer line and the snapshot commands' help instead.
   *
   * @see kernel/trace/trace.c s_show() with iter->snapshot, print_snapshot_help()
   */
  *#snapshotChunks(): Generator<string, void, undefined> {
    const snap = this.snapshot.buffer;
    if (snap === undefined || snap.entries === 0) {
      yield `# tracer: nop\n#\n${snapshotHelp(snap !== undefined)}`;
      return;
    }
    yield* this.#formatter.traceChunks(snap);
  }

  /**
   * `/proc/sys/debug`: `kprobes-optimization` reads `1`/`0`; writing an integer 0 or 1 unoptimizes every
   * optimized probe and stops optimizing, or optimizes them again (anything else: EINVAL, as
   * `proc_dointvec_minmax` with the range 0..1 answers).
   * @see kernel/kprobes.c proc_kprobes_optimization_handler(); Documentation/trace/kprobes.rst Appendix B
   */
  #procSysDebug(name: string): TraceFsNode | undefined {
    const k = this.view.debugfs;
    switch (name) {
      case '':
        return dir(() => ['kprobes-optimization']);
      case 'kprobes-optimization':
        return file(
          () => (k.optimization ? '1\n' : '0\n'),
          (t) => {
            const v = /^\s*[-+]?\d+\s*$/.test(t) ? Number.parseInt(t, 10) : Number.NaN;
            if (v !== 0 && v !== 1) throw new TraceFsError('EINVAL', 'kprobes-optimization: write 0 or 1');
            k.setOptimization(v === 1);
          },
        );
      default:
        return undefined;
    }
  }

  #kprobesDebugfs(name: string): TraceFsNode | undefined {
    const k = this.view.debugfs;
    switch (name) {
      case '':
        return dir(() => ['blacklist', 'enabled', 'list']);
      case 'list':
        return file(() => k.list());
      case 'blacklist':
        return file(() => k.blacklist());
      case 'enabled':
        return file(
          () => k.enabled(),
          (t) => {
            if (!k.writeEnabled(t)) throw new TraceFsError('EINVAL', 'kprobes/enabled: write 0 or 1');
          },
        );
      default:
        return undefined;
    }
  }
}
