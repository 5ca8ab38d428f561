import { COMMON_FIELDS, type FieldDescriptor, type TraceEventType } from '../events/trace-event-type.js';

/**
 * One `field:` line; for a fixed array the `[N]` moves from the type to after the name
 * (`field:u8 buf[4];`), while `__data_loc` types keep theirs.
 *
 * @see kernel/trace/trace_events.c f_show()
 */
export function formatFieldLine(f: FieldDescriptor): string {
  const bracket = f.ctype.startsWith('__data_loc') ? -1 : f.ctype.indexOf('[');
  const decl = bracket < 0 ? `${f.ctype} ${f.name}` : `${f.ctype.slice(0, bracket)} ${f.name}${f.ctype.slice(bracket)}`;
  return `\tfield:${decl};\toffset:${f.offset};\tsize:${f.size};\tsigned:${f.signed ? 1 : 0};\n`;
}

/**
 * The `events/<GRP>/<EVENT>/format` file: name, ID, the common fields, a blank line, the event's
 * fields, a blank line and `print fmt:`.
 *
 * @see kernel/trace/trace_events.c f_show()
 */
export function eventFormatFile(type: TraceEventType): string {
  const common = COMMON_FIELDS.map(formatFieldLine).join('');
  const own = type.fields.map(formatFieldLine).join('');
  return `name: ${type.name}\nID: ${type.id}\nformat:\n${common}\n${own}\nprint fmt: ${type.printFmt}\n`;
}
