import type { FieldDescriptor, FormatContext } from '../events/trace-event-type.js';
import type { ErrorLog } from '../probe-events/error-log.js';
import type { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import type { TraceEventFile } from '../tracefs/trace-event-file.js';
import type { EventTriggers } from './event-triggers.js';
import type { HistData } from './hist/hist-data.js';
import type { KernelStackWriter } from './kernel-stack-writer.js';
import type { SnapshotBuffer } from './snapshot-buffer.js';

/** An event a trigger may name (`enable_event:SYSTEM:EVENT`): its flags and its fields. */
export interface TriggerTargetEvent {
  readonly group: string;
  readonly name: string;
  readonly file: TraceEventFile;
  readonly fields: readonly FieldDescriptor[];
  /** Its trigger list (`enable_hist` pauses and resumes its hist triggers). */
  readonly triggers: EventTriggers;
}

/** A named histogram shared by the hist triggers of that name, and how many use it. */
export interface NamedHist {
  readonly data: HistData;
  refs: number;
}

/**
 * What triggers need from their tracefs: the trace buffer (`tracing_on`), the snapshot buffer, the
 * stack writer, the events (`enable_event` targets), `error_log`, comms and symbols, the named
 * histograms and the virtual clock.
 */
export interface TriggerContext {
  readonly buffer: TraceBuffer;
  readonly snapshot: SnapshotBuffer;
  readonly stack: KernelStackWriter;
  findEvent(system: string, name: string): TriggerTargetEvent | undefined;
  readonly errorLog: ErrorLog;
  /** `saved_cmdlines` (`.execname` keys name the task that made the entry). */
  readonly cmdlines: ReadonlyMap<number, string>;
  /** Symbols for `.sym` and `.sym-offset` keys. */
  readonly formatContext: FormatContext;
  /** Histograms by `name=`, shared across events. @see find_named_trigger() */
  readonly namedHists: Map<string, NamedHist>;
  /** Virtual time in ns, for error_log entries. */
  now(): number;
}
