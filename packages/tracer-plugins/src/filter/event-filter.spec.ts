import { describe, expect, it } from 'vitest';
import { encodeRecord } from '../trace-output/encode-record.js';
import { EventFilter, FILTER_WRITE_MAX } from './event-filter.js';
import { formatFilterError } from './filter-error.js';
import { FIELDS } from './filter-fields.fixture.js';

describe(EventFilter, () => {
  it('should read none until a filter is written, and the text after', () => {
    const f = new EventFilter(FIELDS);
    expect(f.read()).toBe('none\n');
    expect(f.write('common_pid == 7\n')).toEqual({ ok: true });
    expect(f.read()).toBe('common_pid == 7\n');
  });

  it('should pass only matching records and clear on 0', () => {
    const f = new EventFilter(FIELDS);
    const rec = encodeRecord(FIELDS, { common_pid: 7 });
    f.write('common_pid == 8');
    expect(f.match(rec)).toBe(false);
    f.write('0\n');
    expect(f.read()).toBe('none\n');
    expect(f.match(rec)).toBe(true);
  });

  it('should read back the kernel error report and disable filtering after a bad write', () => {
    const f = new EventFilter(FIELDS);
    f.write('common_pid == 8');
    const result = f.write('dsig == 17\n');
    expect(result).toEqual({ ok: false, error: { code: 'FIELD_NOT_FOUND', pos: 5, errno: 'EINVAL' } });
    expect(f.read()).toBe('dsig == 17\n     ^\nparse_error: Field not found\n\n');
    expect(f.match(encodeRecord(FIELDS, { common_pid: 1 }))).toBe(true);
  });
});

describe('EventFilter page limit', () => {
  it('should refuse a write of a page or more before parsing, leaving the filter as it was', () => {
    const f = new EventFilter(FIELDS);
    f.write('common_pid == 7');
    expect(f.write(`${'('.repeat(5000)}common_pid == 7${')'.repeat(5000)}`)).toEqual({ ok: false, tooLong: true });
    expect(f.write(`x${' '.repeat(FILTER_WRITE_MAX - 1)}`)).toEqual({ ok: false, tooLong: true });
    expect(f.read()).toBe('common_pid == 7\n');
    // 4,079 '!' (odd) and a predicate: one byte under the page, accepted and folded to one not.
    const odd = `${'!'.repeat(FILTER_WRITE_MAX - 17)}common_pid == 88`;
    expect(odd.length).toBe(FILTER_WRITE_MAX - 1);
    expect(f.write(odd)).toEqual({ ok: true });
    expect(f.match(encodeRecord(FIELDS, { common_pid: 7 }))).toBe(true);
    expect(f.match(encodeRecord(FIELDS, { common_pid: 88 }))).toBe(false);
  });

  it('should match through a page-long chain of groups as a loop, not nested calls', () => {
    const f = new EventFilter(FIELDS);
    const term = '(common_pid==7)';
    const chain = Array(Math.floor((FILTER_WRITE_MAX - 1) / (term.length + 2)))
      .fill(term)
      .join('&&');
    expect(f.write(chain)).toEqual({ ok: true });
    expect(f.match(encodeRecord(FIELDS, { common_pid: 7 }))).toBe(true);
    expect(f.match(encodeRecord(FIELDS, { common_pid: 8 }))).toBe(false);
  });
});

describe(formatFilterError, () => {
  it('should put the caret at column 0 for position 0 and clamp past the end', () => {
    expect(formatFilterError('(a', { code: 'TOO_MANY_OPEN', pos: 0, errno: 'EINVAL' })).toBe(
      "(a\n^\nparse_error: Too many '('\n",
    );
    expect(formatFilterError('ab', { code: 'EXPECT_STRING', pos: 9, errno: 'EINVAL' })).toBe(
      'ab\n  ^\nparse_error: Expecting string field\n',
    );
  });

  it('should print Error: (0) for the kernel paths that set no error', () => {
    expect(formatFilterError('', { code: 'NONE', pos: 0, errno: 'EPERM' })).toBe('\nError: (0)\n');
  });
});
