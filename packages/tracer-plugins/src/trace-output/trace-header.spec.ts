import { describe, expect, it } from 'vitest';
import { printTraceHeader } from './trace-header.js';

describe(printTraceHeader, () => {
  it('should print the modern nop header exactly', () => {
    expect(printTraceHeader({ entries: 2, written: 2, cpus: 4 })).toBe(
      `# tracer: nop
#
# entries-in-buffer/entries-written: 2/2   #P:4
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
`,
    );
  });

  it('should report the counts and tracer it is given', () => {
    const text = printTraceHeader({ entries: 51, written: 60, cpus: 1, tracer: 'function' });
    expect(text.split('\n').slice(0, 3)).toEqual([
      '# tracer: function',
      '#',
      '# entries-in-buffer/entries-written: 51/60   #P:1',
    ]);
  });
});
