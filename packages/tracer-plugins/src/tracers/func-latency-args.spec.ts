import { describe, expect, it } from 'vitest';
import { bootTraceFs } from '../../test/support/tracefs-machine.js';
import { TracerUsageError } from '../plugins/tracer-usage-error.js';
import { matchFunctions, parseFuncLatencyArgs } from './func-latency-args.js';

describe(parseFuncLatencyArgs, () => {
  it.each([
    [['vfs_read'], { unit: 'nsecs', factor: 1, perFunction: false, pattern: 'vfs_read' }],
    [['-u', 'vfs_*'], { unit: 'usecs', factor: 1000, perFunction: false, pattern: 'vfs_*' }],
    [['-mF', 'do_*'], { unit: 'msecs', factor: 1_000_000, perFunction: true, pattern: 'do_*' }],
    [['-F', '-u', 'x'], { unit: 'usecs', factor: 1000, perFunction: true, pattern: 'x' }],
  ])('should read %j as bcc does', (args, expected) => {
    expect(parseFuncLatencyArgs(args)).toEqual(expected);
  });

  it.each([
    [[], /^no pattern; usage: funclatency/],
    [['a', 'b'], /^one pattern only; usage:/],
    [['-p', '1', 'a'], /^unknown option '-p'; usage:/],
  ])('should refuse %j with a TracerUsageError', (args, message) => {
    expect(() => parseFuncLatencyArgs(args)).toThrow(message);
    expect(() => parseFuncLatencyArgs(args)).toThrow(TracerUsageError);
  });
});

describe(matchFunctions, () => {
  it('should take a name without * as it is, and match * against the text symbols once each', () => {
    const { symbols } = bootTraceFs().fs.view;
    expect(matchFunctions(symbols, 'no_such_fn')).toEqual(['no_such_fn']);
    const vfs = matchFunctions(symbols, 'vfs_*');
    expect(vfs).toEqual(expect.arrayContaining(['vfs_read', 'vfs_write']));
    expect(new Set(vfs).size).toBe(vfs.length);
    expect(vfs.every((f) => f.startsWith('vfs_'))).toBe(true);
    expect(matchFunctions(symbols, 'sys_call_table*')).toEqual([]);
  });
});
