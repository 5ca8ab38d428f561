import { EventFileFlag } from '../tracefs/trace-event-file.js';
import { TraceFsError } from '../tracefs/trace-fs-error.js';
import { type EventTrigger, TriggerType } from './event-trigger.js';
import { parseCount, separateFilter, setTriggerFilter } from './event-trigger-parse.js';
import type { TriggerCommandParser, TriggerList, TriggerTargetEvent } from './trigger-context.js';

/**
 * `enable_event:SYSTEM:EVENT[:N] [if FILTER]` and `disable_event:…` (and `enable_hist`, `disable_hist`,
 * which pause and resume the target's hist triggers instead): the target event is armed in soft
 * mode while the trigger exists (its `enable` reads `0*` or `1*`), and a firing clears or sets its
 * SOFT_DISABLED bit; the counted form spends a firing only when the state changes. A target that does
 * not exist, or a missing `SYSTEM:EVENT`, is EINVAL; the same command on the same target twice, EEXIST.
 *
 * @see kernel/trace/trace_events_trigger.c event_enable_trigger_parse(), event_enable_trigger(),
 *   event_enable_count_trigger(), event_enable_trigger_print(), event_enable_register_trigger()
 */
function eventEnableCommand(name: EnableCommandName): TriggerCommandParser {
  const enable = name === 'enable_event' || name === 'enable_hist';
  const hist = name === 'enable_hist' || name === 'disable_hist';
  const command: TriggerCommandParser = {
    name,
    type: hist ? TriggerType.HIST_ENABLE : TriggerType.EVENT_ENABLE,
    post: false,
    needsRec: false,
    parse(triggers: TriggerList, glob: string, paramAndFilter: string | undefined): void {
      if (paramAndFilter === undefined) throw new TraceFsError('EINVAL', `trigger: ${name} needs SYSTEM:EVENT`);
      const sep = separateFilter(paramAndFilter, true);
      const [system, event, ...rest] = (sep.param ?? '').split(':');
      if (event === undefined) throw new TraceFsError('EINVAL', `trigger: ${name} needs SYSTEM:EVENT`);
      const ctx = triggers.context;
      const target = ctx.findEvent(system, event);
      if (target === undefined) throw new TraceFsError('EINVAL', `trigger: no event ${system}:${event}`);
      if (glob.startsWith('!')) {
        triggers.unregister({ command, target: target.file });
        return;
      }
      const param = rest.length > 0 ? rest.join(':') : undefined;
      const count = parseCount(param);
      const f = setTriggerFilter(sep.filter, triggers.owner.type.fields, triggers.context);
      const t = enableTrigger(command, enable, hist, target, count, f?.text, f?.filter);
      target.file.enableDisable(true, true);
      try {
        triggers.register(t);
      } catch (e) {
        target.file.enableDisable(false, true);
        throw e;
      }
    },
    ...(hist
      ? {
          unregAll: (triggers: TriggerList) =>
            triggers.unregisterAll((t) => t.command.type === TriggerType.HIST_ENABLE),
        }
      : {}),
  };
  return command;
}

type EnableCommandName = 'enable_event' | 'disable_event' | 'enable_hist' | 'disable_hist';

function enableTrigger(
  command: TriggerCommandParser,
  enable: boolean,
  hist: boolean,
  target: TriggerTargetEvent,
  count: number,
  filterText: string | undefined,
  filter: EventTrigger['filter'],
): EventTrigger {
  const file = target.file;
  const set = hist
    ? () => {
        for (const h of target.triggers.list) if (h.command.type === TriggerType.EVENT_HIST) h.paused = !enable;
      }
    : () => {
        if (enable) file.flags &= ~EventFileFlag.SOFT_DISABLED;
        else file.flags |= EventFileFlag.SOFT_DISABLED;
      };
  const t: EventTrigger = {
    command,
    count,
    filterText,
    filter,
    paused: false,
    target: file,
    trigger:
      count === -1
        ? set
        : () => {
            if (t.count === 0) return;
            // Already in the state this trigger switches to: nothing spent (enable_hist spends always).
            if (!hist && enable === !file.softDisabled) return;
            if (t.count !== -1) t.count--;
            set();
          },
    print: () =>
      `${command.name}:${target.group}:${target.name}${t.count === -1 ? ':unlimited' : `:count=${t.count}`}${
        t.filterText !== undefined ? ` if ${t.filterText}` : ''
      }\n`,
    free: () => file.enableDisable(false, true),
  };
  return t;
}

/** `enable_event:SYSTEM:EVENT[:N]`. */
export const enableEventCommand = eventEnableCommand('enable_event');
/** `disable_event:SYSTEM:EVENT[:N]`. */
export const disableEventCommand = eventEnableCommand('disable_event');
/**
 * `enable_hist:SYSTEM:EVENT[:N]`: resumes the target event's hist triggers.
 * @see kernel/trace/trace_events_hist.c hist_enable_trigger(), trigger_hist_enable_cmd
 */
export const enableHistCommand = eventEnableCommand('enable_hist');
/** `disable_hist:SYSTEM:EVENT[:N]`: pauses them. */
export const disableHistCommand = eventEnableCommand('disable_hist');
