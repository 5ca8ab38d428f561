import { isGoodName, isGoodSystemName, type ParseContext, probeLogErr } from './parse-context.js';

/** Event and group names are shorter than this. @see MAX_EVENT_NAME_LEN */
export const MAX_EVENT_NAME_LEN = 64;

/** A parsed `[GRP/][EVENT]`; `event` undefined when only a group was given (`GRP/`). */
export interface ParsedEventName {
  readonly group: string | undefined;
  readonly event: string | undefined;
}

/**
 * Parses `[GROUP/][EVENT]` (a `.` separates when there is no `/`), starting at `offset` in the current
 * argv word.
 *
 * @see kernel/trace/trace_probe.c traceprobe_parse_event_name()
 */
export function traceprobeParseEventName(text: string, offset: number, ctx: ParseContext): ParsedEventName {
  let sep = text.indexOf('/');
  if (sep < 0) sep = text.indexOf('.');
  let group: string | undefined;
  let event = text;
  if (sep >= 0) {
    if (sep === 0) probeLogErr(ctx, offset, 'NO_GROUP_NAME');
    if (sep + 1 > MAX_EVENT_NAME_LEN) probeLogErr(ctx, offset, 'GROUP_TOO_LONG');
    group = text.slice(0, sep);
    if (!isGoodSystemName(group)) probeLogErr(ctx, offset, 'BAD_GROUP_NAME');
    event = text.slice(sep + 1);
    offset += sep + 1;
  }
  if (event.length === 0) {
    if (sep >= 0) return { group, event: undefined };
    probeLogErr(ctx, offset, 'NO_EVENT_NAME');
  }
  if (event.length >= MAX_EVENT_NAME_LEN) probeLogErr(ctx, offset, 'EVENT_TOO_LONG');
  if (!isGoodName(event)) probeLogErr(ctx, offset, 'BAD_EVENT_NAME');
  return { group, event };
}
