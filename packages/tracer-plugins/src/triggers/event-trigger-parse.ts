import type { FieldDescriptor } from '../events/trace-event-type.js';
import { EventFilter } from '../filter/event-filter.js';
import { type FilterErrorSink, logFilterError } from '../filter/filter-error.js';
import { kstrtoul } from '../probe-events/kstrto.js';
import { TraceFsError } from '../tracefs/trace-fs-error.js';

/** A trigger's `[param] [if filter]` split apart. */
export interface ParamAndFilter {
  readonly param: string | undefined;
  readonly filter: string | undefined;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/**
 * Splits `param [if filter]`. A command whose param is optional takes one only when the text starts
 * with a digit (the `:N` count); otherwise all of it is the filter. A required param that is missing
 * is EINVAL.
 *
 * @see kernel/trace/trace_events_trigger.c event_trigger_separate_filter()
 */
export function separateFilter(text: string | undefined, paramRequired: boolean): ParamAndFilter {
  if (text === undefined) {
    if (paramRequired) throw new TraceFsError('EINVAL', 'trigger: this command needs a parameter');
    return { param: undefined, filter: undefined };
  }
  if (!paramRequired && !isDigit(text[0])) return { param: undefined, filter: text };
  const m = /[ \t]/.exec(text);
  if (m === null) return { param: text, filter: undefined };
  const filter = text.slice(m.index + 1).replace(/^\s+/, '');
  return { param: text.slice(0, m.index), filter: filter === '' ? undefined : filter };
}

/**
 * The `:N` count: the param up to its first `:`, any base `kstrtoul` takes; -1 (unlimited) without one.
 *
 * @see kernel/trace/trace_events_trigger.c event_trigger_parse_num()
 */
export function parseCount(param: string | undefined): number {
  if (param === undefined) return -1;
  const number = param.split(':')[0];
  const n = number === '' ? undefined : kstrtoul(number, 0);
  if (n === undefined) throw new TraceFsError('EINVAL', `trigger: bad count '${number}'`);
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

/** A trigger's compiled `if` filter and its text as `trigger` prints it. */
export interface TriggerFilter {
  readonly text: string;
  readonly filter: EventFilter;
}

/**
 * Compiles `if FILTER` against the triggering event's fields: the first word must be `if` and a filter
 * must follow; a filter that does not parse is EINVAL, and logged to `error_log` as an event filter's
 * parse error is.
 *
 * @see kernel/trace/trace_events_trigger.c set_trigger_filter()
 */
export function setTriggerFilter(
  text: string | undefined,
  fields: readonly FieldDescriptor[],
  log: FilterErrorSink,
): TriggerFilter | undefined {
  if (text === undefined) return undefined;
  const m = /[ \t]/.exec(text);
  const word = m === null ? text : text.slice(0, m.index);
  if (word !== 'if' || m === null) throw new TraceFsError('EINVAL', `trigger: expected 'if FILTER', got '${text}'`);
  const rest = text.slice(m.index + 1);
  const filter = new EventFilter(fields);
  const r = filter.write(rest);
  // A filter that does not parse is logged as the filter file logs it (set_str is on "for error handling").
  if (!r.ok && 'error' in r) logFilterError(log, rest.replace(/\s+$/, ''), r.error);
  if (!r.ok || filter.predicate === undefined) throw new TraceFsError('EINVAL', `trigger: bad filter '${rest}'`);
  return { text: rest, filter };
}

/** `name:unlimited` or `name:count=N`, then ` if FILTER`, as the simple triggers print. @see event_trigger_print() */
export function eventTriggerPrint(name: string, count: number, filterText: string | undefined): string {
  const n = count === -1 ? ':unlimited' : `:count=${count}`;
  return `${name}${n}${filterText !== undefined ? ` if ${filterText}` : ''}\n`;
}
