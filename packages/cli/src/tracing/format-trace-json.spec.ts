import { describe, expect, it } from 'vitest';
import { formatTraceJson, parseTraceLine } from './format-trace-json.js';

const OPEN =
  '             cat-1       [000] d....     0.000010: myprobe: (do_sys_open+0x0/0x40) dfd=0xffffff9c filename="/etc/motd" flags=0x0';

describe(parseTraceLine, () => {
  it('should read the context columns, the probe and the arguments of a kprobe line', () => {
    expect(parseTraceLine(OPEN)).toEqual({
      comm: 'cat',
      pid: 1,
      cpu: 0,
      flags: 'd....',
      timestamp: '0.000010',
      event: 'myprobe',
      probe: 'do_sys_open+0x0/0x40',
      args: { dfd: '0xffffff9c', filename: '/etc/motd', flags: '0x0' },
    });
  });

  it('should read a return probe and a quoted string with blanks', () => {
    const r = parseTraceLine('  my-comm-12 [001] d.... 1.000000: ret: (sys_x+0x9/0x20 <- do_it) s="a b" arg1=0x3');
    expect(r?.comm).toBe('my-comm');
    expect(r?.probe).toBe('sys_x+0x9/0x20 <- do_it');
    expect(r?.args).toEqual({ s: 'a b', arg1: '0x3' });
  });

  it('should skip header and empty lines', () => {
    expect(parseTraceLine('# tracer: nop')).toBeUndefined();
    expect(formatTraceJson(`# tracer: nop\n${OPEN}\n\n`).split('\n')).toHaveLength(2);
  });
});
