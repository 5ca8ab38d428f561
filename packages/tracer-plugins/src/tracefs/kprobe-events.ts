import { KprobeError } from '@int3/kprobes';
import type { EventFilter } from '../filter/event-filter.js';
import { checkAppendProbe } from '../probe-events/compare-probes.js';
import type { ErrorLog } from '../probe-events/error-log.js';
import { parseProbeLine } from '../probe-events/parse-probe-line.js';
import type { ProbeDefinition, ProbeRemoval, ProbeResolver } from '../probe-events/probe-definition.js';
import type { ProbeErrnoName } from '../probe-events/probe-errno.js';
import type { ProbeParseError } from '../probe-events/probe-parse-error.js';
import { registrationError } from '../probe-events/registration-error.js';
import { resolveSymbols, type SymbolLookup } from '../probe-events/resolve-symbols.js';
import { splitCommandLines } from '../probe-events/split-command-lines.js';
import { matchesRemoval, traceKprobeShow } from '../probe-events/trace-kprobe-show.js';
import type { TriggerState } from '../triggers/event-triggers.js';
import type { TriggerContext } from '../triggers/trigger-context.js';
import type { MachineView } from '../view/machine-view.js';
import type { ProbeSink } from './probe-sink.js';
import type { TraceEventFile } from './trace-event-file.js';
import { type TraceFsErrnoName, TraceFsError } from './trace-fs-error.js';
import { TraceKprobe, type TraceKprobeState } from './trace-kprobe.js';
import { TraceKprobeEvent } from './trace-kprobe-event.js';

/**
 * The first id handed to a dynamic event. Static events take the ids below it on a real kernel; the
 * exact value differs between builds, and tools read it from `id` or `format`.
 */
export const FIRST_DYNAMIC_EVENT_ID = 1500;

/** What {@link KprobeEvents} needs from its tracefs. */
export interface KprobeEventsDeps {
  /** The kprobes API, the module notifier and the kernel log. */
  readonly view: MachineView;
  readonly resolver: ProbeResolver;
  readonly lookup: SymbolLookup;
  readonly errorLog: ErrorLog;
  readonly sink: ProbeSink;
  /** Virtual time in ns for error_log entries. */
  readonly now: () => number;
  /** What the events' triggers act on (the `trigger` and `hist` files need it). */
  readonly triggers?: TriggerContext;
}

function errnoOf(e: ProbeParseError): TraceFsErrnoName {
  // -ECANCELED (not a kprobe command) reaches user space as -EINVAL.
  return e.errnoName === 'ECANCELED' ? 'EINVAL' : (e.errnoName as TraceFsErrnoName);
}

/** {@link KprobeEvents} at a machine snapshot. */
export interface KprobeEventsState {
  readonly probes: readonly (readonly [TraceKprobe, TraceKprobeState])[];
  readonly events: readonly (readonly [
    string,
    TraceKprobeEvent,
    readonly TraceKprobe[],
    ReturnType<TraceEventFile['save']>,
    ReturnType<EventFilter['save']>,
    readonly TriggerState[],
  ])[];
  readonly nextId: number;
}

/**
 * The kprobe dynamic events and the `kprobe_events` file: definitions register DISABLED kprobes, a
 * second definition under an event name joins it (multiprobe), `-:` removes, a truncating write releases
 * everything, and every rejected command is logged to `error_log` and fails with the kernel's errno.
 *
 * @see kernel/trace/trace_kprobe.c __trace_kprobe_create(), register_trace_kprobe(), trace_kprobe_release()
 * @see kernel/trace/trace_dynevent.c dyn_event_release(), dyn_events_release_all()
 * @example
 * events.write('p:myprobe do_sys_open dfd=%di\n', true);
 * events.show(); // 'p:kprobes/myprobe do_sys_open dfd=%di\n'
 */
export class KprobeEvents {
  /** Every probe in creation order (the dyn_event list). */
  readonly probes: TraceKprobe[] = [];
  readonly #events = new Map<string, TraceKprobeEvent>();
  readonly #byId = new Map<number, TraceKprobeEvent>();
  #nextId = FIRST_DYNAMIC_EVENT_ID;

  constructor(private readonly deps: KprobeEventsDeps) {
    deps.view.onModuleComing((module) => this.#moduleComing(module));
  }

  /**
   * A module is coming: every probe on its symbols registers now — a `MOD:SYM` probe defined before
   * the module was loaded, or one that became GONE when it was unloaded. A failure is logged, as
   * the kernel warns, and the probe stays unregistered.
   *
   * @see kernel/trace/trace_kprobe.c trace_kprobe_module_callback()
   */
  #moduleComing(module: string): void {
    for (const p of this.probes) {
      if (p.def.module !== module) continue;
      const event = this.#events.get(`${p.def.group}/${p.def.event}`);
      p.unregister(this.deps.view.kprobes);
      try {
        p.register(this.deps.view.kprobes, event?.enabled ?? false);
      } catch (e) {
        if (!(e instanceof KprobeError)) throw e;
        this.deps.view.printk(4, `Failed to re-register probe ${p.def.event} on ${module}: ${-e.errno}`);
      }
    }
  }

  /**
   * The definitions as they are now, for a machine snapshot: the probes and events by identity, and
   * each one's state (hit counts; enable flags, filter, triggers).
   */
  save(): KprobeEventsState {
    return Object.freeze({
      probes: Object.freeze(this.probes.map((p) => Object.freeze([p, p.save()] as const))),
      events: Object.freeze(
        [...this.#events].map(([key, ev]) =>
          Object.freeze([
            key,
            ev,
            Object.freeze([...ev.probes]),
            ev.file.save(),
            ev.filter.save(),
            ev.triggers.save(),
          ] as const),
        ),
      ),
      nextId: this.#nextId,
    });
  }

  /**
   * Puts the definitions back as {@link save} found them: a probe defined since is gone, one removed
   * since is back, as kprobes' own snapshot (restored before this one) has them registered or not.
   */
  restore(s: KprobeEventsState): void {
    this.probes.splice(0, this.probes.length);
    for (const [p, state] of s.probes) {
      p.restore(state);
      this.probes.push(p);
    }
    this.#events.clear();
    this.#byId.clear();
    for (const [key, ev, probes, file, filter, triggers] of s.events) {
      ev.probes.splice(0, ev.probes.length, ...probes);
      ev.triggers.restore(triggers);
      ev.file.restore(file);
      ev.filter.restore(filter);
      this.#events.set(key, ev);
      this.#byId.set(ev.id, ev);
    }
    this.#nextId = s.nextId;
  }

  /** Events in creation order. */
  get events(): TraceKprobeEvent[] {
    return [...this.#events.values()];
  }

  /** The event with this id (`common_type` of its records), if defined. */
  eventById(id: number): TraceKprobeEvent | undefined {
    return this.#byId.get(id);
  }

  /** The event `group/name`, if defined. */
  event(group: string, name: string): TraceKprobeEvent | undefined {
    return this.#events.get(`${group}/${name}`);
  }

  /** Reads `kprobe_events`: one definition per probe, as the kernel prints it back. */
  show(): string {
    return this.probes.map((p) => traceKprobeShow(p.def, p.maxactive)).join('');
  }

  /**
   * Writes `kprobe_events`. Without `append` every event is released first (EBUSY, changing nothing,
   * if one is enabled). Lines run in order; the first failure stops the write and throws.
   *
   * @see kernel/trace/trace_kprobe.c probes_write(), probes_open()
   */
  write(text: string, append: boolean): void {
    if (!append) this.releaseAll();
    const { lines, tooLong } = splitCommandLines(text);
    for (const line of lines) {
      const parsed = parseProbeLine(line, this.deps.resolver);
      if (parsed === undefined) continue;
      if (!parsed.ok) this.#fail(parsed.error);
      const cmd = parsed.value;
      if (cmd.type === 'remove') this.#remove(cmd.removal);
      else this.#create(cmd.definition);
    }
    if (tooLong) throw new TraceFsError('EINVAL', 'Line length is too long: Should be less than 4094');
  }

  /**
   * `echo > kprobe_events`: removes every event, or none (EBUSY) when any is enabled.
   *
   * @see kernel/trace/trace_dynevent.c dyn_events_release_all()
   */
  releaseAll(): void {
    const busy = this.events.find((e) => e.enabled);
    if (busy) throw new TraceFsError('EBUSY', `${busy.group}/${busy.name} is enabled; disable it first`);
    for (const p of this.probes) p.unregister(this.deps.view.kprobes);
    this.probes.length = 0;
    this.#events.clear();
    this.#byId.clear();
  }

  #fail(e: ProbeParseError): never {
    if (e.logMessage !== undefined) {
      this.deps.errorLog.append({
        timestampNs: BigInt(Math.floor(this.deps.now())),
        location: 'trace_kprobe',
        message: e.logMessage,
        command: e.command,
        position: e.position,
      });
    }
    throw new TraceFsError(errnoOf(e), e.message);
  }

  /**
   * Step 1: resolve `@SYM` arguments. Step 2: if the event exists, check the probe may join it. Step 3:
   * register the kprobe (DISABLED unless the event is enabled); a registration error maps to the
   * kernel's log entry, except a probe on a module not yet loaded, which is kept unregistered.
   * Step 4: add the probe, creating the event when new.
   */
  #create(parsed: ProbeDefinition): void {
    const resolved = resolveSymbols(parsed, this.deps.lookup);
    if (!resolved.ok) this.#fail(resolved.error);
    const def = resolved.value;
    const existing = this.event(def.group, def.event);
    if (existing) {
      const clash = checkAppendProbe(existing.definitions, def);
      if (clash) this.#fail(clash);
    }
    const event = existing ?? new TraceKprobeEvent(this.#nextId, def, this.deps.view.kprobes, this.deps.triggers);
    const probe = new TraceKprobe(def, event.id, event.filter, this.deps.sink, event);
    try {
      probe.register(this.deps.view.kprobes, event.enabled);
    } catch (e) {
      if (!(e instanceof KprobeError)) throw e;
      const err = registrationError(def, e.code as ProbeErrnoName, this.deps.resolver);
      if (err) this.#fail(err);
    }
    if (!existing) {
      this.#nextId++;
      this.#events.set(`${def.group}/${def.event}`, event);
      this.#byId.set(event.id, event);
    }
    event.probes.push(probe);
    this.probes.push(probe);
  }

  /**
   * Removes the probes a `-:` line selects; ENOENT when none, EBUSY (removing nothing) when one's event
   * is enabled. An event with no probe left goes away.
   *
   * @see kernel/trace/trace_kprobe.c trace_kprobe_release(), unregister_trace_kprobe()
   */
  #remove(removal: ProbeRemoval): void {
    const chosen = this.probes.filter((p) => matchesRemoval(p.def, removal));
    if (chosen.length === 0) throw new TraceFsError('ENOENT', `no kprobe event matches -:${removal.event}`);
    const busy = chosen.find((p) => this.event(p.def.group, p.def.event)?.enabled);
    if (busy) throw new TraceFsError('EBUSY', `${busy.def.group}/${busy.def.event} is enabled; disable it first`);
    for (const p of chosen) {
      p.unregister(this.deps.view.kprobes);
      this.probes.splice(this.probes.indexOf(p), 1);
      const key = `${p.def.group}/${p.def.event}`;
      const ev = this.#events.get(key);
      if (!ev) continue;
      ev.probes.splice(ev.probes.indexOf(p), 1);
      if (ev.probes.length === 0) {
        this.#events.delete(key);
        this.#byId.delete(ev.id);
      }
    }
  }
}
