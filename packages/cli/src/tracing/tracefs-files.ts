import type { TraceFs } from '@int3/tracer-plugins';

/** What the CLI reads of tracefs: its files, as trace-cmd and perf read the kernel's. */
export type TraceFsFiles = Pick<TraceFs, 'read' | 'ls'>;

/** An event the probe definitions made, as `available_events` lists it (`group:event`). */
export interface DefinedEvent {
  readonly group: string;
  readonly name: string;
}

/**
 * The events `available_events` lists, in its order (the order they were defined in).
 * @see kernel/trace/trace_events.c show_event()
 */
export function definedEvents(fs: TraceFsFiles): DefinedEvent[] {
  const out: DefinedEvent[] = [];
  for (const line of fs.read('available_events').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) out.push({ group: line.slice(0, colon), name: line.slice(colon + 1) });
  }
  return out;
}

/** The counters of `per_cpu/cpuN/stats` the CLI reports. */
export interface RingStats {
  readonly entries: number;
  readonly overrun: number;
  readonly droppedEvents: number;
}

/**
 * One CPU's ring-buffer counters, read from `per_cpu/cpu<N>/stats` (`entries: 12`, `overrun: 0`, …,
 * `dropped events: 0`).
 * @see kernel/trace/trace.c tracing_stats_read()
 */
export function ringStats(fs: TraceFsFiles, cpu: number): RingStats {
  const values = new Map<string, number>();
  for (const line of fs.read(`per_cpu/cpu${cpu}/stats`).split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) values.set(line.slice(0, colon), Number(line.slice(colon + 1)));
  }
  const counter = (key: string): number => {
    const v = values.get(key);
    if (v === undefined || !Number.isSafeInteger(v)) throw new Error(`per_cpu/cpu${cpu}/stats has no counter '${key}'`);
    return v;
  };
  return { entries: counter('entries'), overrun: counter('overrun'), droppedEvents: counter('dropped events') };
}

/** The CPUs with a ring buffer: the `per_cpu/cpu<N>` directories. */
export function ringCpus(fs: TraceFsFiles): number[] {
  return fs
    .ls('per_cpu')
    .map((d) => /^cpu(\d+)$/.exec(d))
    .filter((m) => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

/**
 * Probe hits so far, all events: the `nhit` column of `kprobe_profile` summed (a hit counts whether
 * or not a filter then dropped its record, and whether or not a reader consumed it since).
 * @see kernel/trace/trace_kprobe.c probes_profile_seq_show()
 */
export function probeHits(fs: TraceFsFiles): number {
  let n = 0;
  for (const line of fs.read('kprobe_profile').split('\n')) {
    const columns = line.trim().split(/\s+/);
    if (columns.length === 3) n += Number(columns[1]);
  }
  return n;
}

/** `buffer_size_kb`: each CPU's ring buffer, in KiB. */
export function bufferSizeKb(fs: TraceFsFiles): number {
  return Number.parseInt(fs.read('buffer_size_kb'), 10);
}
