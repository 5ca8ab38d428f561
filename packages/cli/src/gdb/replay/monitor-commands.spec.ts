import { describe, expect, it } from 'vitest';
import { traceUpTo } from './monitor-commands.js';

const TRACE = `# tracer: nop
#
             cat-1       [000] d....     0.000010: open: (do_sys_open+0x0/0x40)
             cat-1       [001] d....     0.000012: open: (do_sys_open+0x0/0x40)
             cat-1       [000] d....     0.000020: read: (vfs_read+0x0/0x40)
`;

describe(traceUpTo, () => {
  it('should keep the header and the records each CPU had made by its virtual time', () => {
    const clocks = [15_000, 12_000];
    expect(traceUpTo(TRACE, 2, (c) => clocks[c])).toBe(`${TRACE.split('\n').slice(0, 4).join('\n')}\n`);
    expect(traceUpTo(TRACE, 2, () => 0)).toBe('# tracer: nop\n#\n');
    expect(traceUpTo(TRACE, 2, () => 1e9)).toBe(TRACE);
  });
});
