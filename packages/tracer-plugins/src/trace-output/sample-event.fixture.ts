import type { FieldDescriptor, TraceEventType } from '../events/trace-event-type.js';
import { decodeField } from './decode-field.js';

const fields: readonly FieldDescriptor[] = [
  { name: '__probe_ip', ctype: 'unsigned long', offset: 8, size: 8, signed: false, kind: 'int' },
  { name: 'dfd', ctype: 'int', offset: 16, size: 4, signed: true, kind: 'int' },
  { name: 'filename', ctype: '__data_loc char[]', offset: 20, size: 4, signed: false, kind: 'string' },
  { name: 'big', ctype: 'u64', offset: 24, size: 8, signed: false, kind: 'int' },
  { name: 'pair', ctype: 'u16[2]', offset: 32, size: 4, signed: false, kind: 'array', count: 2 },
];

/** A kprobe-shaped event type for output tests; its body mimics `print_kprobe_event`. */
export const SAMPLE_EVENT: TraceEventType = {
  id: 9,
  system: 'kprobes',
  name: 'myprobe',
  fields,
  printFmt: '"(%lx) dfd=%d filename=\\"%s\\"", REC->__probe_ip, REC->dfd, __get_str(filename)',
  formatBody(record, ctx) {
    const ip = BigInt(decodeField(record, fields[0]) as number | string);
    const sym = ctx.symbolize(ip) ?? ip.toString(16);
    return `(${sym}) dfd=${decodeField(record, fields[1])} filename="${decodeField(record, fields[2])}"`;
  },
};
