import { describe, expect, it } from 'vitest';
import { listedProbes, run, traceLines } from '../../test/support/tracefs-machine.js';
import { PluginError } from '../plugins/plugin-error.js';
import { FuncLatency } from './func-latency.js';
import { bootTracerHost } from './tracer-host.fixture.js';

describe(FuncLatency, () => {
  it('should count every call as the tracefs kretprobe event does, on cat', async () => {
    const { m, fs, host } = await bootTracerHost();
    fs.write('kprobe_events', 'r:rr vfs_read $retval\nr:ro do_sys_open $retval');
    fs.write('events/kprobes/enable', '1');
    host.start('funclatency', ['vfs_read', 'do_sys_open']);
    run(m, ['cat', '/etc/motd']);
    host.stop('funclatency');
    const lines = traceLines(fs);
    const text = host.report('funclatency').text;
    const count = (f: string) => Number(new RegExp(`Function = ${f}\\n[^]*?count: (\\d+)`).exec(text)?.[1]);
    expect(count('vfs_read')).toBe(lines.filter((l) => l.includes(' rr: ')).length);
    expect(count('do_sys_open')).toBe(1);
    expect(count('vfs_read')).toBeGreaterThan(0);
  });

  it("should print bcc funclatency's histogram and summary for each function", async () => {
    const { m, host } = await bootTracerHost();
    host.start('funclatency', ['do_sys_open']);
    run(m, ['cat', '/etc/motd']);
    const text = host.report('funclatency').text;
    const rows = text.split('\n');
    expect(rows[0]).toBe('Function = do_sys_open');
    expect(rows[1]).toBe('     nsecs               : count     distribution');
    expect(rows[2]).toBe('         0 -> 1          : 0        |                                        |');
    expect(text).toMatch(/\n {7,}\d+ -> \d+ +: 1 {8}\|\*{40}\|\n\navg = (\d+) nsecs, total: \1 nsecs, count: 1\n$/);
  });

  it('should measure in virtual ns: a longer function reads as slower than the one it calls', async () => {
    const { m, host } = await bootTracerHost();
    host.start('funclatency', ['sys_read', 'vfs_read']);
    run(m, ['cat', '/etc/motd']);
    const h = host.report('funclatency').text;
    const totals = [...h.matchAll(/total: (\d+) nsecs/g)].map((x) => Number(x[1]));
    expect(totals[0]).toBeGreaterThan(totals[1]);
    expect(totals[1]).toBeGreaterThan(0);
    expect([...h.matchAll(/count: (\d+)/g)].map((x) => x[1])).toEqual(['2', '2']);
  });

  it('should remove its kretprobes on stop', async () => {
    const { fs, host } = await bootTracerHost();
    host.start('funclatency', ['vfs_read', 'sys_fork']);
    expect(listedProbes(fs)).toHaveLength(2);
    host.stop('funclatency');
    expect(listedProbes(fs)).toEqual([]);
  });

  it('should fail an unknown function with a PluginError, leave no probe, and keep the machine running', async () => {
    const { m, fs, host } = await bootTracerHost();
    expect(() => host.start('funclatency', ['vfs_read', 'no_such_function'])).toThrow(PluginError);
    expect(() => host.start('funclatency', ['no_such_function'])).toThrow(
      /^plugin '@int3\/funclatency': tracer 'funclatency': start\(no_such_function\) threw: /,
    );
    expect(listedProbes(fs)).toEqual([]);
    expect(run(m, ['cat', '/etc/motd'])).toMatch(/^Welcome/);
  });

  it('should refuse to start without functions, saying how to call it', async () => {
    const { host } = await bootTracerHost();
    expect(() => host.start('funclatency')).toThrow(/usage: funclatency FUNCTION/);
  });
});
