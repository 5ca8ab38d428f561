import { describe, expect, it } from 'vitest';
import { encodeRecord, type FieldValue } from '../trace-output/encode-record.js';
import { compileFilter } from './compile-filter.js';
import { FIELDS } from './filter-fields.fixture.js';
import { parseFilter } from './parse-filter.js';

const RECORD: Record<string, FieldValue> = {
  common_type: 5,
  common_pid: 1234,
  __probe_ip: 0xffffffff81000010n,
  dfd: -100,
  flags: 0x8002,
  mode: 0o644 & 0xff,
  neg: -3,
  big: 0x1_0000_0005n,
  sbig: -5n,
  filename: '/etc/passwd',
  comm: 'bash',
  arr: [1, 2],
};

function matches(text: string, values: Record<string, FieldValue> = RECORD): boolean {
  const parsed = parseFilter(text, FIELDS);
  if (!parsed.ok) throw new Error(`${text}: ${parsed.error.code}`);
  return compileFilter(parsed.ast)(encodeRecord(FIELDS, values));
}

describe(compileFilter, () => {
  it.each<[string, boolean]>([
    ['common_pid == 1234', true],
    ['common_pid != 1234', false],
    ['common_type == 5', true],
    ['dfd == -100', true],
    ['dfd < -99', true],
    ['dfd > 0', false],
    ['dfd == 0xffffff9c', true],
    ['flags & 0x8000', true],
    ['flags & 0x4', false],
    ['flags >= 32770', true],
    ['mode == 0244', true],
    ['neg < 0', true],
    ['neg == 253', true],
    ['big > 0xffffffff', true],
    ['big == 4294967301', true],
    ['big < 4294967296', false],
    ['big & 0x100000000', true],
    ['big & 2', false],
    ['sbig < 0', true],
    ['sbig > -6', true],
    ['sbig == -5', true],
    ['__probe_ip == 0xffffffff81000010', true],
    ['__probe_ip >= 0xffffffff81000000 && __probe_ip < 0xffffffff81001000', true],
    ['filename == "/etc/passwd"', true],
    ['filename == "/etc/pass"', false],
    ['filename != "/etc/passwd"', false],
    ['filename ~ "/etc/*"', true],
    ['filename ~ "*wd"', true],
    ['filename ~ "*tc/p*"', true],
    ['filename ~ "/etc/pa??wd"', true],
    ['filename ~ "/etc/[a-p]asswd"', true],
    ['filename ~ "/etc/[a-o]asswd"', false],
    ['filename ~ "/etc/[!p]asswd"', false],
    ['filename ~ "!/etc/*"', false],
    ['comm == "bash"', true],
    ['comm ~ "ba*"', true],
    ["comm != 'sh'", true],
    ['!(common_pid == 1234)', false],
    ['!(common_pid == 1 || dfd == -100)', false],
    ['common_pid == 1 || dfd == -100 && mode == 0xa4', true],
    ['(common_pid == 1 || dfd == -100) && mode == 1', false],
    ['!common_pid == 1', true],
  ])('should evaluate %j as %s', (text, expected) => {
    expect(matches(text)).toBe(expected);
  });

  it('should read the record at an offset inside a larger buffer', () => {
    const parsed = parseFilter('common_pid == 1234 && filename ~ "*passwd"', FIELDS);
    if (!parsed.ok) throw new Error('parse');
    const rec = encodeRecord(FIELDS, RECORD);
    const big = new Uint8Array(rec.length + 100);
    big.set(rec, 37);
    expect(compileFilter(parsed.ast)(big, 37)).toBe(true);
    expect(compileFilter(parsed.ast)(big, 0)).toBe(false);
  });
});
