import { describe, expect, it } from 'vitest';
import { MachineFetchContext } from '../src/tracefs/machine-fetch-context.js';
import { bootTraceFs, run, traceLines } from './support/tracefs-machine.js';

describe(MachineFetchContext, () => {
  it('should fetch $argN as x-typed hex at a function entry (kprobe_args)', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:testprobe do_sys_open $arg1 $arg2 $arg3 $arg4 $stack $stack0 $comm');
    fs.write('events/kprobes/testprobe/enable', '1');
    run(m, ['cat', '/etc/motd']);
    const [line] = traceLines(fs);
    expect(line).toMatch(/ arg1=0x[0-9a-f]+ arg2=0x[0-9a-f]+ arg3=0x[0-9a-f]+ arg4=0x[0-9a-f]+ /);
    expect(line).toMatch(/ arg1=0xffffff9c /);
    expect(line).toMatch(/ arg7="cat"$/);
  });

  it('should fetch strings from kernel and user memory and print (fault) when unmapped (kprobe_args_string, _user)', () => {
    const { m, fs } = bootTraceFs();
    fs.write(
      'kprobe_events',
      'p:s do_sys_open kstr=+0(%si):string ustr=+0(%si):ustring bad=+0(%ax):string bad2=+0(\\0x10):string',
    );
    fs.write('events/kprobes/s/enable', '1');
    run(m, ['cat', '/etc/motd']);
    const [line] = traceLines(fs);
    expect(line).toMatch(/ kstr="\/etc\/motd" ustr="\/etc\/motd" bad=.* bad2=\(fault\)$/);
  });

  it('should fetch typed, dereferenced and immediate values', () => {
    const { m, fs } = bootTraceFs();
    fs.write(
      'kprobe_events',
      'p:t do_sys_open dfd=%di:s32 low=%di:u8 first=+0(%si):x8 bits=%di:b4@0/8 imm=\\42 s=\\"hi"',
    );
    fs.write('events/kprobes/t/enable', '1');
    run(m, ['cat', '/etc/motd']);
    const [line] = traceLines(fs);
    expect(line).toMatch(/ dfd=-100 low=156 first=0x2f bits=12 imm=0x2a s="hi"$/);
  });
});
