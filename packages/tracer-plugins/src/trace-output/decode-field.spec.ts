import { describe, expect, it } from 'vitest';
import type { FieldDescriptor } from '../events/trace-event-type.js';
import { decodeField } from './decode-field.js';
import { encodeRecord } from './encode-record.js';

const f = (
  name: string,
  ctype: string,
  offset: number,
  size: number,
  signed: boolean,
  kind: FieldDescriptor['kind'],
  count?: number,
): FieldDescriptor => ({ name, ctype, offset, size, signed, kind, ...(count === undefined ? {} : { count }) });

const FIELDS = [
  f('s64', 's64', 8, 8, true, 'int'),
  f('u64', 'u64', 16, 8, false, 'int'),
  f('s16', 's16', 24, 2, true, 'int'),
  f('comm', 'char[8]', 26, 8, false, 'array', 8),
  f('name', '__data_loc char[]', 36, 4, false, 'string'),
];

describe(decodeField, () => {
  it('should round-trip what encodeRecord wrote, with unsafe 64-bit values as decimal strings', () => {
    const rec = encodeRecord(FIELDS, { s64: -(2n ** 60n), u64: 2n ** 53n - 1n, s16: -2, comm: 'sh', name: 'héllo' });
    expect(FIELDS.map((x) => decodeField(rec, x))).toEqual([
      '-1152921504606846976',
      9007199254740991,
      -2,
      'sh',
      'héllo',
    ]);
  });

  it('should read a record that starts inside a larger buffer', () => {
    const rec = encodeRecord(FIELDS, { s16: 300, name: 'x' });
    const big = new Uint8Array(rec.length + 8);
    big.set(rec, 8);
    expect(decodeField(big, FIELDS[2], 8)).toBe(300);
    expect(decodeField(big, FIELDS[4], 8)).toBe('x');
  });
});
