import { KprobeError } from '@int3/kprobes';
import { EventFilter } from '../filter/event-filter.js';
import type { ProbeDefinition } from '../probe-events/probe-definition.js';
import { ProbeEventType } from '../probe-events/probe-event-type.js';
import type { TracerKprobes } from '../view/tracer-kprobes.js';
import { TraceFsErrno, type TraceFsErrnoName, TraceFsError } from './trace-fs-error.js';
import type { TraceKprobe } from './trace-kprobe.js';

/**
 * A kprobe event (`events/<grp>/<evt>/`): its id and record layout (from the first definition), its
 * `filter`, its `enable` switch, and its probes — one, or several sharing the id (multiprobe).
 *
 * @see kernel/trace/trace_probe.h struct trace_probe_event
 * @see kernel/trace/trace_kprobe.c enable_trace_kprobe(), disable_trace_kprobe()
 * @example
 * const ev = new TraceKprobeEvent(1500, def);
 * ev.probes.push(new TraceKprobe(def, ev.id, ev.filter, sink));
 */
export class TraceKprobeEvent {
  readonly type: ProbeEventType;
  readonly filter: EventFilter;
  readonly probes: TraceKprobe[] = [];
  #enabled = false;

  constructor(
    readonly id: number,
    def: ProbeDefinition,
  ) {
    this.type = new ProbeEventType(id, def);
    this.filter = new EventFilter(this.type.fields);
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

  get enabled(): boolean {
    return this.#enabled;
  }

  /**
   * Writes `enable`: turns every probe's kprobe on or off; on a failure the probes already enabled are
   * turned off again and the error propagates.
   */
  setEnabled(k: TracerKprobes, on: boolean): void {
    if (on === this.#enabled) return;
    if (!on) {
      for (const p of this.probes) p.disable(k);
      this.#enabled = false;
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
    this.#enabled = true;
  }
}
