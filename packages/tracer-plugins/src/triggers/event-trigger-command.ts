import type { EventFilter } from '../filter/event-filter.js';
import type { EventTrigger, TriggerHit } from './event-trigger.js';
import { eventTriggerPrint, parseCount, separateFilter, setTriggerFilter } from './event-trigger-parse.js';
import type { TriggerCommandParser, TriggerContext, TriggerList } from './trigger-context.js';

/** What a simple trigger does: fire (with its data, so a count can be read or spent). */
export type SimpleTriggerFn = (t: EventTrigger, hit: TriggerHit, ctx: TriggerContext) => void;

/** How a simple command is made: its name, type, post flag, and its function with and without a count. */
export interface SimpleCommandSpec {
  readonly name: string;
  readonly type: number;
  readonly post: boolean;
  /** Without `:N`. */
  readonly fn: SimpleTriggerFn;
  /** With `:N` (the count ops). */
  readonly countFn: SimpleTriggerFn;
  /** Called before registering and after unregistering (the snapshot command arms its buffer). */
  readonly onRegister?: (ctx: TriggerContext) => void;
  readonly onUnregister?: (ctx: TriggerContext) => void;
}

/**
 * A command parsed the generic way (`traceon`, `traceoff`, `snapshot`, `stacktrace`):
 * `cmd[:N] [if FILTER]`, `!cmd` removing the trigger of that type (nothing to remove is no error).
 *
 * @see kernel/trace/trace_events_trigger.c event_trigger_parse()
 */
export function simpleCommand(spec: SimpleCommandSpec): TriggerCommandParser {
  const command: TriggerCommandParser = {
    name: spec.name,
    type: spec.type,
    post: spec.post,
    needsRec: false,
    parse(triggers: TriggerList, glob: string, paramAndFilter: string | undefined): void {
      const { param, filter } = separateFilter(paramAndFilter, false);
      const ctx = triggers.context;
      if (glob.startsWith('!')) {
        if (triggers.unregister({ command, target: undefined })) spec.onUnregister?.(ctx);
        return;
      }
      const count = parseCount(param);
      const f = setTriggerFilter(filter, triggers.owner.type.fields, ctx);
      const fn = param === undefined ? spec.fn : spec.countFn;
      const t: EventTrigger = {
        command,
        count,
        filterText: f?.text,
        filter: f?.filter as EventFilter | undefined,
        paused: false,
        trigger: (hit) => fn(t, hit, ctx),
        print: () => eventTriggerPrint(spec.name, t.count, t.filterText),
      };
      spec.onRegister?.(ctx);
      try {
        triggers.register(t);
      } catch (e) {
        spec.onUnregister?.(ctx);
        throw e;
      }
    },
  };
  return command;
}

/** Spends one of a counted trigger's firings; false when none is left. */
export function spendCount(t: EventTrigger): boolean {
  if (t.count === 0) return false;
  if (t.count !== -1) t.count--;
  return true;
}
