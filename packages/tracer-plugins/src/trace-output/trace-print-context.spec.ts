import { describe, expect, it } from 'vitest';
import { formatTraceTimestamp, tracePrintContext } from './trace-print-context.js';

const base = { comm: 'sh', pid: 75, cpu: 0, flags: 0, preemptCount: 0, ts: 33_793_362_000 };

describe(tracePrintContext, () => {
  it('should reproduce a real modern trace line prefix', () => {
    expect(tracePrintContext(base)).toBe('              sh-75      [000] .....    33.793362: ');
  });

  it('should fill 16 columns with a 15-character comm and never truncate', () => {
    expect(tracePrintContext({ ...base, comm: 'kworker/u16:123' })).toBe(
      ' kworker/u16:123-75      [000] .....    33.793362: ',
    );
    expect(tracePrintContext({ ...base, comm: 'a-very-long-command' }).startsWith('a-very-long-command-75 ')).toBe(
      true,
    );
  });

  it('should widen for pids of seven digits and more, and print CPUs in three digits', () => {
    expect(tracePrintContext({ ...base, pid: 1234567, cpu: 7 })).toBe(
      '              sh-1234567 [007] .....    33.793362: ',
    );
    expect(tracePrintContext({ ...base, pid: 12345678, cpu: 123 })).toBe(
      '              sh-12345678 [123] .....    33.793362: ',
    );
  });
});

describe(formatTraceTimestamp, () => {
  it.each<[number, string]>([
    [0, '    0.000000'],
    [1_000, '    0.000001'],
    [499, '    0.000000'],
    [500, '    0.000001'],
    [12_345_678_901_000, '12345.678901'],
    [999_999_999_500, ' 1000.000000'],
    [123_456_789_012_345_000, '123456789.012345'],
  ])('should print %i ns as %j', (ts, expected) => {
    expect(formatTraceTimestamp(ts)).toBe(expected);
  });
});
