import { COMMON_FIELDS, type FieldDescriptor } from '../../events/trace-event-type.js';
import { kstrtoul } from '../../probe-events/kstrto.js';

/** The `HIST_FIELD_FL_*` bits int3 uses. @see kernel/trace/trace_events_hist.c enum hist_field_flags */
export const HistFieldFlag = Object.freeze({
  HITCOUNT: 1 << 0,
  KEY: 1 << 1,
  STRING: 1 << 2,
  HEX: 1 << 3,
  SYM: 1 << 4,
  SYM_OFFSET: 1 << 5,
  EXECNAME: 1 << 6,
  LOG2: 1 << 9,
  TIMESTAMP: 1 << 10,
  TIMESTAMP_USECS: 1 << 11,
  CPU: 1 << 15,
  BUCKET: 1 << 17,
} as const);

/** One key or value of a hist trigger (`struct hist_field`). */
export interface HistField {
  readonly flags: number;
  /** The event field read, absent for hitcount, common_timestamp and common_cpu. */
  readonly field: FieldDescriptor | undefined;
  /** `.buckets=N`, else 0. */
  readonly buckets: number;
}

/** Why a field could not be made: the error and the text the caret points at. */
export type HistFieldError = { readonly code: 'BAD_FIELD_MODIFIER' | 'FIELD_NOT_FOUND'; readonly at: string };

/**
 * Parses `name[.modifier]`: the modifiers `.hex .sym .sym-offset .execname` (on common_pid only)
 * `.log2 .usecs .buckets=N`, the special fields `common_timestamp`, `common_cpu` and `hitcount`, else an
 * event field by name.
 *
 * @see kernel/trace/trace_events_hist.c parse_field(), create_hist_field()
 */
export function parseHistField(
  text: string,
  fields: readonly FieldDescriptor[],
  baseFlags: number,
): HistField | HistFieldError {
  const dot = text.indexOf('.');
  const name = dot < 0 ? text : text.slice(0, dot);
  const modifier = dot < 0 ? undefined : text.slice(dot + 1);
  let flags = baseFlags;
  let buckets = 0;
  if (modifier !== undefined) {
    if (modifier === 'hex') flags |= HistFieldFlag.HEX;
    else if (modifier === 'sym') flags |= HistFieldFlag.SYM;
    else if (modifier === 'sym-offset') flags |= HistFieldFlag.SYM_OFFSET;
    else if (modifier === 'execname' && name === 'common_pid') flags |= HistFieldFlag.EXECNAME;
    else if (modifier === 'log2') flags |= HistFieldFlag.LOG2;
    else if (modifier === 'usecs') flags |= HistFieldFlag.TIMESTAMP_USECS;
    else if (modifier.startsWith('bucket')) {
      let rest = modifier.slice(6);
      if (rest.startsWith('s')) rest = rest.slice(1);
      const n = rest.startsWith('=') ? kstrtoul(rest.slice(1), 0) : undefined;
      if (n === undefined || n === 0n) return { code: 'BAD_FIELD_MODIFIER', at: modifier };
      buckets = Number(n);
      flags |= HistFieldFlag.BUCKET;
    } else return { code: 'BAD_FIELD_MODIFIER', at: modifier };
  }
  if (name === 'common_timestamp') return { flags: flags | HistFieldFlag.TIMESTAMP, field: undefined, buckets };
  if (name === 'common_cpu' || name === 'cpu' || name === 'CPU') {
    return { flags: flags | HistFieldFlag.CPU, field: undefined, buckets };
  }
  if (name === 'hitcount') return { flags: flags | HistFieldFlag.HITCOUNT, field: undefined, buckets };
  const field = fields.find((f) => f.name === name) ?? COMMON_FIELDS.find((f) => f.name === name);
  if (field === undefined || field.size === 0) return { code: 'FIELD_NOT_FOUND', at: name };
  if (field.kind === 'string') flags |= HistFieldFlag.STRING;
  return { flags, field, buckets };
}

/** The field's name as the kernel prints it. @see hist_field_name() */
export function histFieldName(f: HistField): string {
  if (f.field !== undefined) return f.field.name;
  if (f.flags & HistFieldFlag.CPU) return 'common_cpu';
  if (f.flags & HistFieldFlag.TIMESTAMP) return 'common_timestamp';
  if (f.flags & HistFieldFlag.HITCOUNT) return 'hitcount';
  return '';
}

/** The modifier the kernel prints after the name, if any. @see get_hist_field_flags() */
function histFieldModifier(f: HistField): string | undefined {
  const F = HistFieldFlag;
  if (f.flags & F.HEX) return 'hex';
  if (f.flags & F.SYM) return 'sym';
  if (f.flags & F.SYM_OFFSET) return 'sym-offset';
  if (f.flags & F.EXECNAME) return 'execname';
  if (f.flags & F.LOG2) return 'log2';
  if (f.flags & F.BUCKET) return 'buckets';
  if (f.flags & F.TIMESTAMP_USECS) return 'usecs';
  return undefined;
}

/** `name[.modifier][=buckets]`, as the trigger info prints a field. @see hist_field_print() */
export function histFieldPrint(f: HistField): string {
  const mod = histFieldModifier(f);
  return `${histFieldName(f)}${mod === undefined ? '' : `.${mod}`}${f.buckets ? `=${f.buckets}` : ''}`;
}
