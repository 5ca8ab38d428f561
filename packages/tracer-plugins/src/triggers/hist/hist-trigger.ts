import type { FormatContext } from '../../events/trace-event-type.js';
import { TraceFsError } from '../../tracefs/trace-fs-error.js';
import { type EventTrigger, TriggerType } from '../event-trigger.js';
import { setTriggerFilter } from '../event-trigger-parse.js';
import type { TriggerCommandParser, TriggerList } from '../trigger-context.js';
import { HistData, type HistDataState } from './hist-data.js';
import { HIST_ERRORS, type HistErrorCode } from './hist-errors.js';
import { histTriggerPrint, histTriggerShow } from './hist-print.js';
import { parseHistTriggerAttrs } from './hist-trigger-attrs.js';

/** What a hist trigger holds besides the generic trigger data. */
interface HistInfo {
  readonly data: HistData;
  /** `name=NAME`, when named. */
  readonly name: string | undefined;
}

const infoOf = new WeakMap<EventTrigger, HistInfo>();

/**
 * Splits `keys… [if filter]` at an `if` with white space on both sides (the trigger's own text may
 * hold spaces); an `if` at the very start or with nothing after it is EINVAL.
 *
 * @see kernel/trace/trace_events_hist.c event_hist_trigger_parse()
 */
function splitFilter(text: string): { param: string; filter: string | undefined } {
  const ws = (c: string | undefined) => c === ' ' || c === '\t';
  let p = text.indexOf('if');
  while (p >= 0) {
    if (p === 0) throw new TraceFsError('EINVAL', 'hist: the trigger is missing before if');
    if (!ws(text[p - 1])) {
      p = text.indexOf('if', p + 1);
      continue;
    }
    if (p >= text.length - 2 - 1) throw new TraceFsError('EINVAL', 'hist: no filter after if');
    if (!ws(text[p + 2])) {
      p = text.indexOf('if', p + 1);
      continue;
    }
    return { param: text.slice(0, p - 1).trim(), filter: text.slice(p).trim() };
  }
  return { param: text, filter: undefined };
}

/**
 * Whether two hist triggers are the same one: the same values, keys (flags and fields) and sort keys,
 * and (unless `ignoreFilter`) the same filter; a named trigger matches only triggers sharing its data.
 *
 * @see kernel/trace/trace_events_hist.c hist_trigger_match()
 */
function histMatch(
  a: HistInfo,
  aFilter: string | undefined,
  b: EventTrigger,
  named: HistData | undefined,
  ignoreFilter: boolean,
): boolean {
  const bi = infoOf.get(b);
  if (bi === undefined) return false;
  if (named !== undefined && bi.data !== named) return false;
  if (named === undefined && bi.name !== undefined) return false;
  if (!sameFields(a.data, bi.data)) return false;
  return ignoreFilter || aFilter === b.filterText;
}

function sameFields(a: HistData, b: HistData): boolean {
  const sig = (h: HistData) =>
    JSON.stringify([
      h.vals.map((f) => [f.flags, f.field?.name, f.field?.ctype, f.field?.size, f.field?.signed]),
      h.keys.map((f) => [f.flags, f.field?.name, f.field?.ctype, f.field?.size, f.field?.signed]),
      h.sortKeys,
    ]);
  return sig(a) === sig(b);
}

function histTriggers(triggers: TriggerList): EventTrigger[] {
  return triggers.list.filter((t) => infoOf.has(t));
}

/**
 * The event's `hist` file: each hist trigger's histogram, in list order (empty with none).
 *
 * @see kernel/trace/trace_events_hist.c hist_show()
 */
export function histShow(triggers: TriggerList, ctx: FormatContext): string {
  return histTriggers(triggers)
    .map((t, n) => {
      const info = infoOf.get(t) as HistInfo;
      return histTriggerShow(info.data, { name: info.name, filterText: t.filterText, paused: t.paused }, n, ctx);
    })
    .join('');
}

/**
 * `hist:keys=…[:vals=…][:sort=…][:size=N][:name=N][:pause|:cont|:clear][:nohitcount] [if FILTER]`.
 * Parse errors go to `error_log` as `hist:SYSTEM:EVENT: error: …` with the command and a caret, as the
 * kernel logs them; `!hist:…` removes the matching trigger (none matching is no error); `pause`,
 * `cont` and `clear` act on a matching trigger, and `cont`/`clear` with none is ENOENT; a second
 * identical trigger is EEXIST. A truncating write (`>`) removes every hist trigger first.
 *
 * @see kernel/trace/trace_events_hist.c event_hist_trigger_parse(), hist_register_trigger(),
 *   existing_hist_update_only(), hist_unregister_trigger(), hist_unreg_all()
 */
export const histCommand: TriggerCommandParser = {
  name: 'hist',
  type: TriggerType.EVENT_HIST,
  post: false,
  needsRec: true,
  parse(triggers: TriggerList, glob: string, paramAndFilter: string | undefined): void {
    const ctx = triggers.context;
    const owner = triggers.owner;
    const lastCmd = `hist:${paramAndFilter ?? ''}`;
    const err = (code: HistErrorCode, at?: string) => {
      const pos = at === undefined ? 0 : Math.max(0, lastCmd.indexOf(at));
      ctx.errorLog.append({
        timestampNs: BigInt(Math.floor(ctx.now())),
        location: `hist:${owner.group}:${owner.name}`,
        message: HIST_ERRORS[code],
        command: lastCmd,
        position: pos,
      });
    };
    if (paramAndFilter === undefined) throw new TraceFsError('EINVAL', 'hist: keys= is required');
    const { param, filter } = splitFilter(paramAndFilter);
    const attrs = parseHistTriggerAttrs(param, err);
    const data = HistData.create(attrs, owner.type.fields, err);
    const f = setTriggerFilter(filter, owner.type.fields, ctx);
    const info: HistInfo = { data, name: attrs.name };
    const named = attrs.name === undefined ? undefined : ctx.namedHists.get(attrs.name);
    if (glob.startsWith('!')) {
      const t = histTriggers(triggers).find((o) => histMatch(info, f?.text, o, named?.data, false));
      if (t !== undefined) triggers.remove(t);
      return;
    }
    if (attrs.pause || attrs.cont || attrs.clear) {
      const usable = attrs.name === undefined || (named !== undefined && sameFields(data, named.data));
      const t = usable
        ? histTriggers(triggers).find((o) => histMatch(info, f?.text, o, named?.data, false))
        : undefined;
      if (t !== undefined) {
        if (attrs.pause) t.paused = true;
        else if (attrs.cont) t.paused = false;
        else (infoOf.get(t) as HistInfo).data.clear();
        return;
      }
    }
    if (named !== undefined && !sameFields(data, named.data)) {
      err('NAMED_MISMATCH', attrs.name);
      throw new TraceFsError('EINVAL', `hist: ${attrs.name} does not match the trigger of that name`);
    }
    if (attrs.name === undefined || named !== undefined) {
      if (histTriggers(triggers).some((o) => histMatch(info, f?.text, o, named?.data, false))) {
        err('TRIGGER_EEXIST');
        throw new TraceFsError('EEXIST', 'hist: this hist trigger already exists');
      }
    }
    if (attrs.cont || attrs.clear) {
      err('TRIGGER_ENOENT_CLEAR');
      throw new TraceFsError('ENOENT', "hist: can't clear or continue a nonexistent hist trigger");
    }
    const shared = named?.data ?? data;
    const used: HistInfo = { data: shared, name: attrs.name };
    const t: EventTrigger = {
      command: histCommand,
      count: -1,
      filterText: f?.text,
      filter: f?.filter,
      paused: attrs.pause,
      trigger: (hit) => shared.update(hit, (pid) => ctx.cmdlines.get(pid) ?? '<...>'),
      print: () => histTriggerPrint(shared, { name: attrs.name, filterText: t.filterText, paused: t.paused }),
      save: () => shared.save(),
      restore: (s) => shared.restore(s as HistDataState),
      free: () => {
        if (attrs.name === undefined) return;
        const entry = ctx.namedHists.get(attrs.name);
        if (entry !== undefined && --entry.refs === 0) ctx.namedHists.delete(attrs.name);
      },
    };
    infoOf.set(t, used);
    if (attrs.name !== undefined) {
      if (named !== undefined) named.refs++;
      else ctx.namedHists.set(attrs.name, { data: shared, refs: 1 });
    }
    try {
      triggers.add(t, true);
    } catch (e) {
      t.free?.();
      throw e;
    }
  },
  unregAll(triggers: TriggerList): void {
    triggers.unregisterAll((t) => infoOf.has(t));
  },
};
