import { KprobeError } from '@int3/kprobes';
import { EventFilter } from '../filter/event-filter.js';
import type { ProbeDefinition } from '../probe-events/probe-definition.js';
import { ProbeEventType } from '../probe-events/probe-event-type.js';
import { EventTriggers } from '../triggers/event-triggers.js';
import type { TriggerContext } from '../triggers/trigger-context.js';
import type { TracerKprobes } from '../view/tracer-kprobes.js';
import { TraceEventFile } from './trace-event-file.js';
import { TraceFsErrno, type TraceFsErrnoName, TraceFsError } from './trace-fs-error.js';
import type { TraceKprobe } from './trace-kprobe.js';

/**
 * A kprobe event (`events/<grp>/<evt>/`): its id and record layout (from the first definition), its
 * `filter`, its `enable` state (with the soft mode triggers use), its `trigger` list, and its probes —
 * one, or several sharing the id (multiprobe).
 *
 * @see kernel/trace/trace_probe.h struct trace_probe_event
 * @see kernel/trace/trace_kprobe.c enable_trace_kprobe(), disable_trace_kprobe()
 * @example
 * const ev = new TraceKprobeEvent(1500, def, kprobes);
 * ev.probes.push(new TraceKprobe(def, ev.id, ev.filter, sink, ev));
 */
export class TraceKprobeEvent {
  readonly type: ProbeEventType;
  readonly filter: EventFilter;
  readonly probes: TraceKprobe[] = [];
  /** The enable flags (ENABLED, SOFT_MODE, SOFT_DISABLED, TRIGGER_MODE, TRIGGER_COND). */
  readonly file: TraceEventFile;
  /** The `trigger` file's list. */
  readonly triggers: EventTriggers;
  #k: TracerKprobes | undefined;

  constructor(
    readonly id: number,
    def: ProbeDefinition,
    kprobes?: TracerKprobes,
    triggerContext?: TriggerContext,
  ) {
    this.type = new ProbeEventType(id, def);
    this.filter = new EventFilter(this.type.fields);
    this.#k = kprobes;
    this.file = new TraceEventFile((on) => this.#arm(on));
    this.triggers = new EventTriggers(this, triggerContext);
  }

  get group(): string {
    return this.type.system;
  }

  get name(): string {
    return this.type.name;
  }

  /** The probe definitions, for multiprobe checks. */
  get definitions(): ProbeDefinition[] {
    return this.probes.map((p) => p.def);
  }

  /** True when the probes are armed: enabled, or kept on softly by a trigger. */
  get enabled(): boolean {
    return this.file.enabled;
  }

  /** Writes `enable` (a real enable, not a trigger's soft one). */
  setEnabled(k: TracerKprobes, on: boolean): void {
    this.#k = k;
    this.file.enableDisable(on, false);
  }

  /**
   * Turns every probe's kprobe on or off; on a failure the probes already enabled are turned off again
   * and the error propagates as the write's errno.
   */
  #arm(on: boolean): void {
    const k = this.#k;
    if (k === undefined) throw new Error('TraceKprobeEvent: no kprobes to arm the event with');
    if (!on) {
      for (const p of this.probes) p.disable(k);
      return;
    }
    const done: TraceKprobe[] = [];
    try {
      for (const p of this.probes) {
        p.enable(k);
        done.push(p);
      }
    } catch (e) {
      for (const p of done) p.disable(k);
      // A refusal from kprobes is the write's errno, not an internal error.
      if (e instanceof KprobeError) {
        const code: TraceFsErrnoName = e.code in TraceFsErrno ? (e.code as TraceFsErrnoName) : 'EINVAL';
        throw new TraceFsError(code, e.message);
      }
      throw e;
    }
  }
}
