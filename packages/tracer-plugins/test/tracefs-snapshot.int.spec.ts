import { describe, expect, it } from 'vitest';
import type { TraceFs } from '../src/tracefs/trace-fs.js';
import { bootTraceFs, listedProbes, run } from './support/tracefs-machine.js';

/** Every tracefs file whose contents a snapshot holds, read now. */
function files(fs: TraceFs): Record<string, string> {
  const out: Record<string, string> = {};
  const read = (path: string) => {
    out[path] = fs.read(path);
  };
  for (const f of [
    'kprobe_events',
    'kprobe_profile',
    'trace',
    'error_log',
    'saved_cmdlines',
    'tracing_on',
    'snapshot',
  ]) {
    read(f);
  }
  read('buffer_size_kb');
  read('/sys/kernel/debug/kprobes/list');
  for (const e of fs.kprobeEvents.events) {
    for (const f of ['enable', 'filter', 'trigger', 'hist']) read(`events/${e.group}/${e.name}/${f}`);
  }
  out.stats = fs.read('per_cpu/cpu0/stats');
  return out;
}

describe('tracefs in machine snapshots', () => {
  it('should restore definitions, enable, filter, triggers, hist tables and the buffers as they were, and re-run to the same trace', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:opens do_sys_open dfd=%di\n');
    fs.write('kprobe_events', 'r:readret ksys_read ret=$retval\n', { append: true });
    fs.write('events/kprobes/opens/enable', '1');
    fs.write('events/kprobes/readret/enable', '1');
    fs.write('events/kprobes/readret/trigger', 'hist:keys=common_pid:vals=ret');
    run(m, ['cat', '/etc/motd']);
    const snap = m.snapshot();
    const at = files(fs);
    expect(at.trace).toContain('opens:');
    // What the snapshot does not know of: more hits, a trace_pipe read, new and removed definitions,
    // a filter, a trigger, an error, the snapshot buffer.
    run(m, ['cat', '/etc/motd']);
    fs.read('trace_pipe');
    fs.write('events/kprobes/opens/enable', '0');
    fs.write('kprobe_events', '-:opens\n', { append: true });
    fs.write('events/kprobes/readret/filter', 'ret == 1');
    fs.write('events/kprobes/readret/trigger', 'traceoff:2');
    fs.write('kprobe_events', 'p:late vfs_read\n', { append: true });
    expect(() => fs.write('kprobe_events', 'p:bad no_such_function\n', { append: true })).toThrow();
    fs.write('snapshot', '1');
    fs.write('tracing_on', '0');
    expect(files(fs)).not.toEqual(at);

    m.restore(snap);
    expect(files(fs)).toEqual(at);
    expect(listedProbes(fs).some((l) => l.includes('vfs_read'))).toBe(false);
    // The same definition again is new, not EEXIST, and a re-run gives the trace a run without the
    // detour gives.
    run(m, ['cat', '/etc/motd']);
    const again = files(fs);
    m.restore(snap);
    run(m, ['cat', '/etc/motd']);
    expect(files(fs)).toEqual(again);

    const straight = bootTraceFs();
    straight.fs.write('kprobe_events', 'p:opens do_sys_open dfd=%di\n');
    straight.fs.write('kprobe_events', 'r:readret ksys_read ret=$retval\n', { append: true });
    straight.fs.write('events/kprobes/opens/enable', '1');
    straight.fs.write('events/kprobes/readret/enable', '1');
    straight.fs.write('events/kprobes/readret/trigger', 'hist:keys=common_pid:vals=ret');
    run(straight.m, ['cat', '/etc/motd']);
    run(straight.m, ['cat', '/etc/motd']);
    expect(files(straight.fs)).toEqual(again);
  });

  it('should restore a snapshot from before the first definition to a tracefs with none', () => {
    const { m, fs } = bootTraceFs();
    const snap = m.snapshot();
    const empty = files(fs);
    fs.write('kprobe_events', 'p:opens do_sys_open\n');
    fs.write('events/kprobes/opens/enable', '1');
    run(m, ['cat', '/etc/motd']);
    m.restore(snap);
    expect(files(fs)).toEqual(empty);
    fs.write('kprobe_events', 'p:opens do_sys_open\n');
    fs.write('events/kprobes/opens/enable', '1');
    run(m, ['cat', '/etc/motd']);
    expect(fs.read('trace')).toContain('opens:');
  });
});
