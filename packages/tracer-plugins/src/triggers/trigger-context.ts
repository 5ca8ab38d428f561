import type { FieldDescriptor, FormatContext } from '../events/trace-event-type.js';
import type { ErrorLog } from '../probe-events/error-log.js';
import type { TraceBuffer } from '../ring-buffer/trace-buffer.js';
import type { TraceEventFile } from '../tracefs/trace-event-file.js';
import type { EventTrigger, TriggerCommand } from './event-trigger.js';
import type { HistData } from './hist/hist-data.js';
import type { KernelStackWriter } from './kernel-stack-writer.js';
import type { SnapshotBuffer } from './snapshot-buffer.js';

/** What the trigger list needs from its event: the enable flags, the record fields, the names. */
export interface TriggerOwner {
  readonly file: TraceEventFile;
  readonly group: string;
  readonly name: string;
  readonly type: { readonly fields: readonly FieldDescriptor[] };
}

/**
 * One event's trigger list as the commands see it (`EventTriggers` is it): the event, the tracefs,
 * the triggers newest first, and adding and removing them.
 * @see kernel/trace/trace_events_trigger.c register_trigger(), unregister_trigger()
 */
export interface TriggerList {
  readonly owner: TriggerOwner;
  readonly context: TriggerContext;
  readonly list: readonly EventTrigger[];
  /** Adds `t` at the head; EEXIST when one of its type (and target) is there. */
  register(t: EventTrigger): void;
  /** Adds `t` at the head or the tail without the clash check. */
  add(t: EventTrigger, tail: boolean): void;
  /** Takes `t` off the list and frees it. */
  remove(t: EventTrigger): void;
  /** Removes the trigger that clashes with `test`; true if there was one. */
  unregister(test: Pick<EventTrigger, 'command' | 'target'>): boolean;
  /** Removes every trigger `pick` selects. */
  unregisterAll(pick: (t: EventTrigger) => boolean): void;
}

/** A command as the `trigger` file dispatches it: how a write parses, what a truncating open removes. */
export interface TriggerCommandParser extends TriggerCommand {
  /**
   * Parses and runs one write: `glob` is the command as written (with its `!`), `param` the text after
   * `cmd:` (undefined when none). Throws TraceFsError.
   */
  parse(triggers: TriggerList, glob: string, param: string | undefined): void;
  /** What a truncating open of `trigger` removes. @see struct event_command unreg_all */
  unregAll?(triggers: TriggerList): void;
}

/** An event a trigger may name (`enable_event:SYSTEM:EVENT`): its flags and its fields. */
export interface TriggerTargetEvent {
  readonly group: string;
  readonly name: string;
  readonly file: TraceEventFile;
  readonly fields: readonly FieldDescriptor[];
  /** Its trigger list (`enable_hist` pauses and resumes its hist triggers). */
  readonly triggers: TriggerList;
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
