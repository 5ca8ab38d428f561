import type { SnapshotProvider } from '@int3/kernel';
import type { ErrorLog } from '../probe-events/error-log.js';
import type { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import type { SnapshotBuffer } from '../triggers/snapshot-buffer.js';
import type { NamedHist } from '../triggers/trigger-context.js';
import type { KprobeEvents } from './kprobe-events.js';

/** The parts of a tracefs whose state a machine snapshot holds. */
export interface TraceFsParts {
  readonly buffer: TraceBuffer;
  readonly snapshot: SnapshotBuffer;
  readonly errorLog: ErrorLog;
  readonly kprobeEvents: KprobeEvents;
  readonly cmdlines: Map<number, string>;
  readonly namedHists: Map<string, NamedHist>;
}

type TraceFsState = ReturnType<typeof save>;

function save(p: TraceFsParts) {
  return Object.freeze({
    buffer: p.buffer.save(),
    snapshot: p.snapshot.save(),
    errorLog: p.errorLog.save(),
    kprobeEvents: p.kprobeEvents.save(),
    cmdlines: Object.freeze([...p.cmdlines]),
    namedHists: Object.freeze([...p.namedHists].map(([name, h]) => Object.freeze([name, h, h.refs] as const))),
  });
}

function restore(p: TraceFsParts, s: TraceFsState): void {
  p.buffer.restore(s.buffer);
  p.snapshot.restore(s.snapshot);
  p.errorLog.restore(s.errorLog);
  p.kprobeEvents.restore(s.kprobeEvents);
  p.cmdlines.clear();
  for (const [pid, comm] of s.cmdlines) p.cmdlines.set(pid, comm);
  p.namedHists.clear();
  for (const [name, h, refs] of s.namedHists) {
    h.refs = refs;
    p.namedHists.set(name, h);
  }
}

/**
 * The snapshot provider of a tracefs: a machine snapshot holds the trace buffer (records, read
 * positions, lost counts, `tracing_on`, `buffer_size_kb`), the `snapshot` buffer, `error_log`,
 * `saved_cmdlines` and the kprobe events — definitions, `enable`, `filter`, `trigger` with counts
 * and hist tables, `kprobe_profile`'s hit counts — so restoring it puts tracefs back as it was then,
 * as kprobes' own provider (registered before, restored before) does the kprobes. A snapshot taken
 * before the provider existed restores the tracefs as it was made.
 *
 * @example
 * m.kernel.registerSnapshotProvider('tracefs', traceFsSnapshotProvider(parts));
 */
export function traceFsSnapshotProvider(parts: TraceFsParts): SnapshotProvider {
  const initial = save(parts);
  return {
    save: () => save(parts),
    restore: (state) => restore(parts, (state as TraceFsState | undefined) ?? initial),
  };
}
