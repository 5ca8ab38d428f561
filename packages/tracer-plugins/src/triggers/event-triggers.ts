import { EventFileFlag } from '../tracefs/trace-event-file.js';
import { TraceFsError } from '../tracefs/trace-fs-error.js';
import type { EventTrigger, TriggerHit } from './event-trigger.js';
import { TRIGGER_COMMANDS } from './trigger-commands.js';
import type { TriggerContext, TriggerList, TriggerOwner } from './trigger-context.js';
import { triggerProcessRegex } from './trigger-process-regex.js';

/** The page a `trigger` write must fit in. @see event_trigger_regex_write() */
const TRIGGER_WRITE_MAX = 4096;

/** One trigger at a machine snapshot: itself, its count, whether paused, what it accumulated. */
export type TriggerState = readonly [EventTrigger, number, boolean, unknown];

/**
 * One event's `trigger` file and trigger list (`file->triggers`, newest first): writes parse a
 * command and add or (`!`-prefixed) remove a trigger; reads list the triggers, or the available
 * commands when there are none; and a hit calls them, unconditionally before the record exists, with
 * the record when one needs it, and after the commit for the post triggers.
 *
 * @see kernel/trace/trace_events_trigger.c event_trigger_regex_write(), trigger_show(),
 *   event_triggers_call(), event_triggers_post_call(), register_trigger(), update_cond_flag()
 * @example
 * ev.triggers.write('traceoff:1 if common_pid == 1', true);
 * ev.triggers.show(); // 'traceoff:count=1 if common_pid == 1\n'
 */
export class EventTriggers implements TriggerList {
  /** Active triggers, newest first (the kernel adds at the list head). */
  readonly list: EventTrigger[] = [];

  constructor(
    readonly owner: TriggerOwner,
    private readonly ctx: TriggerContext | undefined,
  ) {}

  /** The triggers with their counts, pauses and tables, for a machine snapshot. */
  save(): readonly TriggerState[] {
    return Object.freeze(this.list.map((t) => Object.freeze([t, t.count, t.paused, t.save?.()] as const)));
  }

  /** Puts back what {@link save} returned. */
  restore(s: readonly TriggerState[]): void {
    this.list.splice(0, this.list.length);
    for (const [t, count, paused, state] of s) {
      t.count = count;
      t.paused = paused;
      if (state !== undefined) t.restore?.(state);
      this.list.push(t);
    }
  }

  /** The tracefs the triggers act on. */
  get context(): TriggerContext {
    // Only a KprobeEvents built without a tracefs (a unit test's) lacks one: a programming error.
    if (this.ctx === undefined) throw new Error('EventTriggers: this event has no trigger context');
    return this.ctx;
  }

  /**
   * Writes `trigger`. A truncating write (`>`) first drops what the commands drop on `O_TRUNC` (the
   * hist triggers); then the one command, trimmed, is parsed and run.
   *
   * @see kernel/trace/trace_events_trigger.c event_trigger_regex_open(), event_trigger_regex_write()
   */
  write(text: string, append: boolean): void {
    if (!append) for (const c of TRIGGER_COMMANDS) c.unregAll?.(this);
    if (text.length === 0) return;
    if (new TextEncoder().encode(text).length >= TRIGGER_WRITE_MAX) {
      throw new TraceFsError('EINVAL', `trigger: a write must be under a page (${TRIGGER_WRITE_MAX} bytes)`);
    }
    triggerProcessRegex(this, text.trim());
  }

  /** Reads `trigger`. @see trigger_show() */
  show(): string {
    if (this.list.length === 0) {
      return `# Available triggers:\n#${TRIGGER_COMMANDS.map((c) => ` ${c.name}`).join('')}\n`;
    }
    return this.list.map((t) => t.print()).join('');
  }

  /**
   * Adds a trigger: EEXIST if one clashes (same type; for `enable_event` and the like, same type and
   * target). The first trigger soft-enables the event.
   *
   * @see kernel/trace/trace_events_trigger.c register_trigger(), event_enable_register_trigger()
   */
  register(t: EventTrigger): void {
    if (this.list.some((o) => clashes(o, t))) {
      throw new TraceFsError('EEXIST', `trigger: ${t.command.name} is already set on ${this.owner.name}`);
    }
    this.add(t, false);
  }

  /**
   * Puts a trigger on the list, at the head or (hist triggers) the tail, and soft-enables the event for
   * the first one; no clash check (hist triggers make their own).
   *
   * @see kernel/trace/trace_events_trigger.c register_trigger(); kernel/trace/trace_events_hist.c hist_trigger_enable()
   */
  add(t: EventTrigger, tail: boolean): void {
    if (tail) this.list.push(t);
    else this.list.unshift(t);
    this.updateCond();
    try {
      this.owner.file.triggerEnableDisable(true);
    } catch (e) {
      this.list.splice(this.list.indexOf(t), 1);
      this.updateCond();
      throw e;
    }
  }

  /** Takes one trigger off the list (it must be on it) and frees it. */
  remove(t: EventTrigger): void {
    const i = this.list.indexOf(t);
    if (i < 0) return;
    this.list.splice(i, 1);
    this.owner.file.triggerEnableDisable(false);
    this.updateCond();
    t.free?.();
  }

  /**
   * Removes the trigger that clashes with `test` (there is at most one); true if there was one.
   *
   * @see kernel/trace/trace_events_trigger.c try_unregister_trigger(), event_enable_unregister_trigger()
   */
  unregister(test: Pick<EventTrigger, 'command' | 'target'>): boolean {
    const t = this.list.find((o) => clashes(o, test));
    if (t === undefined) return false;
    this.remove(t);
    return true;
  }

  /** Removes every trigger `pick` selects (a truncating open's `unreg_all`). */
  unregisterAll(pick: (t: EventTrigger) => boolean): void {
    for (const t of this.list.filter(pick)) this.remove(t);
  }

  /**
   * TRIGGER_COND: set when a trigger has a filter, runs after the commit, or reads the record.
   *
   * @see kernel/trace/trace_events_trigger.c update_cond_flag()
   */
  updateCond(): void {
    this.owner.file.setCond(this.list.some((t) => t.filter !== undefined || t.command.post || t.command.needsRec));
  }

  /** True when a hit must build the record for the triggers. */
  get cond(): boolean {
    return (this.owner.file.flags & EventFileFlag.TRIGGER_COND) !== 0;
  }

  /**
   * Calls the triggers for one hit: without a record (`hit.rec` undefined) each one fires; with it,
   * each whose filter passes fires, except the post triggers, whose type bits are returned for
   * {@link postCall}.
   *
   * @see kernel/trace/trace_events_trigger.c event_triggers_call()
   */
  call(hit: TriggerHit): number {
    let tt = 0;
    for (const t of this.list) {
      if (t.paused) continue;
      if (hit.rec === undefined) {
        t.trigger(hit);
        continue;
      }
      if (t.filter !== undefined && !t.filter.match(hit.rec, hit.offset)) continue;
      if (t.command.post) {
        tt |= t.command.type;
        continue;
      }
      t.trigger(hit);
    }
    return tt;
  }

  /** Fires the post triggers whose type bits `tt` holds, after the record was committed. @see event_triggers_post_call() */
  postCall(tt: number, hit: TriggerHit): void {
    hit.rec = undefined;
    hit.view = undefined;
    for (const t of this.list) {
      if (t.paused) continue;
      if (t.command.type & tt) t.trigger(hit);
    }
  }
}

function clashes(a: Pick<EventTrigger, 'command' | 'target'>, b: Pick<EventTrigger, 'command' | 'target'>): boolean {
  return a.command.type === b.command.type && a.target === b.target;
}
