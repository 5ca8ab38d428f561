import { COMMON_HEADER_SIZE, type FieldDescriptor } from '../events/trace-event-type.js';
import type { ProbeDefinition } from './probe-definition.js';

function head(name: string, offset: number): FieldDescriptor {
  return Object.freeze({ name, ctype: 'unsigned long', offset, size: 8, signed: false, kind: 'int' });
}

/**
 * The event's fields after the common header: `__probe_ip` (or `__probe_func`, `__probe_ret_ip`), then
 * each argument, packed with no alignment; arrays are `TYPE[N]`, strings `__data_loc char[]`.
 *
 * @see kernel/trace/trace_kprobe.c kprobe_event_define_fields(), kretprobe_event_define_fields()
 * @see kernel/trace/trace_probe.c traceprobe_define_arg_fields()
 */
export function probeEventFields(def: ProbeDefinition): readonly FieldDescriptor[] {
  const fields: FieldDescriptor[] =
    def.kind === 'r'
      ? [head('__probe_func', COMMON_HEADER_SIZE), head('__probe_ret_ip', COMMON_HEADER_SIZE + 8)]
      : [head('__probe_ip', COMMON_HEADER_SIZE)];
  const base = COMMON_HEADER_SIZE + fields.length * 8;
  for (const a of def.args) {
    const t = a.type;
    const field: FieldDescriptor = a.count
      ? {
          name: a.name,
          ctype: `${t.fmttype}[${a.count}]`,
          offset: base + a.offset,
          size: t.size * a.count,
          signed: t.isSigned,
          kind: 'array',
          count: a.count,
        }
      : {
          name: a.name,
          ctype: t.fmttype,
          offset: base + a.offset,
          size: t.size,
          signed: t.isSigned,
          kind: t.isString ? 'string' : 'int',
        };
    fields.push(Object.freeze(field));
  }
  return Object.freeze(fields);
}
