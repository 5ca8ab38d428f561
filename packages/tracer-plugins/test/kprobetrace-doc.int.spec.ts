import { describe, expect, it } from 'vitest';
import { TraceFs } from '../src/tracefs/trace-fs.js';
import { bootTraceFs, run, traceLines } from './support/tracefs-machine.js';

describe(TraceFs, () => {
  it('should trace the kprobetrace doc example myprobe with the documented line shape', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:myprobe do_sys_open dfd=%di filename=+0(%si):string flags=%dx mode=%cx\n');
    fs.write('events/kprobes/myprobe/enable', '1\n');
    expect(run(m, ['cat', '/etc/motd'])).toMatch(/^Welcome/);
    const lines = traceLines(fs);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^ {13}cat-\d+ +\[000\] d\.\.\.\. +\d+\.\d{6}: myprobe: \(do_sys_open\+0x0\/0x[0-9a-f]+\) dfd=0xffffff9c filename="\/etc\/motd" flags=0x0 mode=0x0$/,
    );
  });

  it('should trace the kprobetrace doc example myretprobe with caller <- function and $retval', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'r:myretprobe do_sys_open $retval\n');
    fs.write('events/kprobes/myretprobe/enable', '1');
    run(m, ['cat', '/etc/motd']);
    const lines = traceLines(fs);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/myretprobe: \([a-z_0-9]+\+0x[0-9a-f]+\/0x[0-9a-f]+ <- do_sys_open\) arg1=0x[0-9a-f]+$/);
  });
});
