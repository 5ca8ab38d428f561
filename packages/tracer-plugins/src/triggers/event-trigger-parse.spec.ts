import { describe, expect, it } from 'vitest';
import { COMMON_FIELDS } from '../events/trace-event-type.js';
import { ErrorLog } from '../probe-events/error-log.js';
import { TraceFsError } from '../tracefs/trace-fs-error.js';
import { eventTriggerPrint, parseCount, separateFilter, setTriggerFilter } from './event-trigger-parse.js';

/** The errno name `fn` fails with, or 'ok'. */
function errnoOf(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if (e instanceof TraceFsError) return e.code;
    throw e;
  }
}

describe(separateFilter.name, () => {
  it('should take a leading number as the optional param and the rest as the filter', () => {
    expect(separateFilter('5 if common_pid == 1', false)).toEqual({ param: '5', filter: 'if common_pid == 1' });
    expect(separateFilter('if common_pid == 1', false)).toEqual({ param: undefined, filter: 'if common_pid == 1' });
    expect(separateFilter('5', false)).toEqual({ param: '5', filter: undefined });
  });

  it('should take the first word as a required param, and fail without one', () => {
    expect(separateFilter('sys:ev:3   if x', true)).toEqual({ param: 'sys:ev:3', filter: 'if x' });
    expect(errnoOf(() => separateFilter(undefined, true))).toBe('EINVAL');
  });
});

describe(parseCount.name, () => {
  it('should read the count in any base kstrtoul takes, -1 without one, EINVAL for junk', () => {
    expect(parseCount(undefined)).toBe(-1);
    expect(parseCount('0x10')).toBe(16);
    expect(parseCount('7:junk')).toBe(7);
    expect(errnoOf(() => parseCount('7a'))).toBe('EINVAL');
    expect(errnoOf(() => parseCount(''))).toBe('EINVAL');
  });
});

describe(setTriggerFilter.name, () => {
  it('should compile the text after if, and refuse text without if or a filter that does not parse', () => {
    const sink = { errorLog: new ErrorLog(), now: () => 1_500_000 };
    expect(setTriggerFilter('if common_pid == 1', COMMON_FIELDS, sink)?.text).toBe('common_pid == 1');
    expect(setTriggerFilter(undefined, COMMON_FIELDS, sink)).toBeUndefined();
    expect(errnoOf(() => setTriggerFilter('common_pid == 1', COMMON_FIELDS, sink))).toBe('EINVAL');
    expect(errnoOf(() => setTriggerFilter('if', COMMON_FIELDS, sink))).toBe('EINVAL');
    expect(sink.errorLog.entries).toEqual([]);
    expect(errnoOf(() => setTriggerFilter('if nosuch == 1', COMMON_FIELDS, sink))).toBe('EINVAL');
    expect(sink.errorLog.show()).toBe(
      '[    0.001500] event filter parse error: error: Field not found\n  Command: nosuch == 1\n                  ^\n',
    );
  });
});

describe(eventTriggerPrint.name, () => {
  it('should print the count or unlimited and the filter as the kernel does', () => {
    expect(eventTriggerPrint('traceon', -1, undefined)).toBe('traceon:unlimited\n');
    expect(eventTriggerPrint('traceoff', 2, 'common_pid == 1')).toBe('traceoff:count=2 if common_pid == 1\n');
  });
});
