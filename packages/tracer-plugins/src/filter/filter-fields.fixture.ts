import type { FieldDescriptor } from '../events/trace-event-type.js';

/** A kprobe-like event with one field of every kind the filter treats differently. */
export const FIELDS: readonly FieldDescriptor[] = [
  { name: '__probe_ip', ctype: 'unsigned long', offset: 8, size: 8, signed: false, kind: 'int' },
  { name: 'dfd', ctype: 'int', offset: 16, size: 4, signed: true, kind: 'int' },
  { name: 'flags', ctype: 'u16', offset: 20, size: 2, signed: false, kind: 'int' },
  { name: 'mode', ctype: 'u8', offset: 22, size: 1, signed: false, kind: 'int' },
  { name: 'neg', ctype: 's8', offset: 23, size: 1, signed: true, kind: 'int' },
  { name: 'big', ctype: 'u64', offset: 24, size: 8, signed: false, kind: 'int' },
  { name: 'sbig', ctype: 's64', offset: 32, size: 8, signed: true, kind: 'int' },
  { name: 'filename', ctype: '__data_loc char[]', offset: 40, size: 4, signed: false, kind: 'string' },
  { name: 'comm', ctype: 'char[16]', offset: 44, size: 16, signed: false, kind: 'array', count: 16 },
  { name: 'arr', ctype: 'u32[2]', offset: 60, size: 8, signed: false, kind: 'array', count: 2 },
];
