import type { FormatContext } from '../../events/trace-event-type.js';
import { escapeControls } from '../../trace-output/escape-control.js';
import type { HistData, HistElt } from './hist-data.js';
import { type HistField, HistFieldFlag, histFieldName, histFieldPrint } from './hist-field.js';

/** What the trigger info line shows besides the histogram's fields. */
export interface HistTriggerState {
  readonly name: string | undefined;
  readonly filterText: string | undefined;
  readonly paused: boolean;
}

/**
 * The trigger's line in `trigger` (and after `# trigger info: ` in `hist`):
 * `hist:[name=N:]keys=…:vals=hitcount,…:sort=…:size=N[:clock=global][:nohitcount] [if F] [active]`.
 *
 * @see kernel/trace/trace_events_hist.c event_hist_trigger_print()
 */
export function histTriggerPrint(h: HistData, t: HistTriggerState): string {
  const keys = h.keys.map(histFieldPrint).join(',');
  const vals: string[] = [];
  h.vals.forEach((f, i) => {
    if (i === 0) {
      if (!h.attrs.noHitcount) vals.push('hitcount');
    } else vals.push(histFieldPrint(f));
  });
  const all = [...h.vals, ...h.keys];
  const sort = h.sortKeys
    .map((s) => `${s.idx === 0 ? 'hitcount' : histFieldPrint(all[s.idx])}${s.descending ? '.descending' : ''}`)
    .join(',');
  let out = `hist:${t.name !== undefined ? `${t.name}:` : ''}keys=${keys}:vals=${vals.join(',')}:sort=${sort}:size=${h.maxEntries}`;
  if (h.enableTimestamps) out += ':clock=global';
  if (h.attrs.noHitcount) out += ':nohitcount';
  if (t.filterText !== undefined) out += ` if ${t.filterText}`;
  return `${out}${t.paused ? ' [paused]' : ' [active]'}\n`;
}

const u = (v: bigint, width: number) => v.toString().padStart(width);

/** `%ps` (name only) or `%pS` (with offset and size) of an address; the hex address when unknown. */
function symbol(ctx: FormatContext, a: bigint, offset: boolean): string {
  const s = ctx.symbolize(a);
  if (s === undefined) return `0x${a.toString(16)}`;
  if (offset) return s;
  const plus = s.indexOf('+0x');
  return plus > 0 ? s.slice(0, plus) : s;
}

/** One key as `{ … }` shows it. @see hist_trigger_print_key() */
function printKey(f: HistField, v: bigint | string, elt: HistElt, ctx: FormatContext): string {
  const name = histFieldName(f);
  const F = HistFieldFlag;
  if (typeof v === 'string') return `${name}: ${v.padEnd(50)}`;
  if (f.flags & F.HEX) return `${name}: ${v.toString(16)}`;
  if (f.flags & F.SYM) return `${name}: [${v.toString(16)}] ${symbol(ctx, v, false).padEnd(45)}`;
  if (f.flags & F.SYM_OFFSET) return `${name}: [${v.toString(16)}] ${symbol(ctx, v, true).padEnd(55)}`;
  if (f.flags & F.EXECNAME) return `${name}: ${escapeControls(elt.comm).padEnd(16)}[${u(v, 10)}]`;
  if (f.flags & F.LOG2) return `${name}: ~ 2^${v.toString().padEnd(2)}`;
  if (f.flags & F.BUCKET) return `${name}: ~ ${v}-${v + BigInt(f.buckets) - 1n}`;
  return `${name}: ${u(v, 10)}`;
}

/** One entry line: the keys, hitcount (unless `nohitcount`), the values. @see hist_trigger_entry_print() */
function printEntry(h: HistData, elt: HistElt, ctx: FormatContext): string {
  let out = `{ ${h.keys.map((k, i) => printKey(k, elt.keys[i], elt, ctx)).join(', ')} }`;
  if (!h.attrs.noHitcount) out += ` hitcount: ${u(elt.sums[0], 10)}`;
  for (let i = 1; i < h.vals.length; i++) {
    const f = h.vals[i];
    const name = histFieldName(f);
    const v = elt.sums[i];
    out += `  ${name}: ${f.flags & HistFieldFlag.HEX ? v.toString(16).padStart(10) : u(v, 10)}`;
  }
  return `${out}\n`;
}

/** Compares two key values as tracing_map does (numbers as u64, strings by bytes). */
function cmpKey(a: bigint | string, b: bigint | string): number {
  if (typeof a === 'string' || typeof b === 'string') return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The entries in print order: by the sort keys (a sum, or a key), then — where the kernel's unstable
 * sort leaves ties in hash order — by the keys ascending, so every run prints the same.
 *
 * @see kernel/trace/tracing_map.c tracing_map_sort_entries()
 */
export function sortedEntries(h: HistData): HistElt[] {
  const nVals = h.vals.length;
  const value = (e: HistElt, idx: number) => (idx < nVals ? e.sums[idx] : e.keys[idx - nVals]);
  return [...h.entries.values()].sort((a, b) => {
    for (const s of h.sortKeys) {
      const c = cmpKey(value(a, s.idx), value(b, s.idx));
      if (c !== 0) return s.descending ? -c : c;
    }
    for (let i = 0; i < a.keys.length; i++) {
      const c = cmpKey(a.keys[i], b.keys[i]);
      if (c !== 0) return c;
    }
    return 0;
  });
}

/**
 * One histogram as `hist` prints it: the header with the trigger info, one line per entry, and the
 * totals.
 *
 * @see kernel/trace/trace_events_hist.c hist_trigger_show(), print_entries()
 */
export function histTriggerShow(h: HistData, t: HistTriggerState, n: number, ctx: FormatContext): string {
  let out = n > 0 ? '\n\n' : '';
  out += `# event histogram\n#\n# trigger info: ${histTriggerPrint(h, t)}#\n\n`;
  const entries = sortedEntries(h);
  for (const e of entries) out += printEntry(h, e, ctx);
  out += `\nTotals:\n    Hits: ${h.hits}\n    Entries: ${entries.length}\n    Dropped: ${h.drops}\n`;
  return out;
}
