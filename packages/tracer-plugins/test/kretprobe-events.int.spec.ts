import { describe, expect, it } from 'vitest';
import { TraceKprobe } from '../src/tracefs/trace-kprobe.js';
import { bootTraceFs, run, traceLines } from './support/tracefs-machine.js';

describe(TraceKprobe, () => {
  it('should write the default maxactive back and show it (kretprobe_maxactive)', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', 'r:myr vfs_read\nr20:myr2 vfs_write');
    expect(fs.read('kprobe_events')).toBe('r10:kprobes/myr vfs_read\nr20:kprobes/myr2 vfs_write\n');
  });

  it('should read $retval and entry-captured $argN on return (kretprobe_args)', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'r:myr do_sys_open ret=$retval dfd=$arg1:s32 name=+0($arg2):string');
    fs.write('events/kprobes/myr/enable', '1');
    run(m, ['cat', '/etc/motd']);
    const lines = traceLines(fs);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /myr: \(sys_open\+0x[0-9a-f]+\/0x[0-9a-f]+ <- do_sys_open\) ret=0x3 dfd=-100 name="\/etc\/motd"$/,
    );
  });

  it('should make SYM%return a return probe read back as r (kretprobe_return_suffix)', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:myr vfs_read%return $retval');
    expect(fs.read('kprobe_events')).toMatch(/^r10:kprobes\/myr vfs_read arg1=\$retval\n$/);
    fs.write('events/kprobes/myr/enable', '1');
    run(m, ['cat', '/etc/motd']);
    expect(traceLines(fs)[0]).toMatch(/myr: \(ksys_read\+0x[0-9a-f]+\/0x[0-9a-f]+ <- vfs_read\) arg1=0x/);
  });
});
