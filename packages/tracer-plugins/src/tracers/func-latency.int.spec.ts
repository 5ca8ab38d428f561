import { describe, expect, it } from 'vitest';
import { listedProbes, run, traceLines } from '../../test/support/tracefs-machine.js';
import { PluginError } from '../plugins/plugin-error.js';
import { TracerUsageError } from '../plugins/tracer-usage-error.js';
import { FuncLatency } from './func-latency.js';
import { bootTracerHost, startCause } from './tracer-host.fixture.js';

/** The `count: N` of a funclatency report. */
function countOf(text: string): number {
  return Number(/count: (\d+)\n$/.exec(text)?.[1]);
}

describe(FuncLatency, () => {
  it('should count every call as the tracefs kretprobe event does, on cat', async () => {
    const { m, fs, host } = await bootTracerHost();
    fs.write('kprobe_events', 'r:rr vfs_read $retval');
    fs.write('events/kprobes/enable', '1');
    host.start('funclatency', ['vfs_read']);
    run(m, ['cat', '/etc/motd']);
    host.stop('funclatency');
    const calls = traceLines(fs).filter((l) => l.includes(' rr: ')).length;
    expect(calls).toBeGreaterThan(0);
    expect(countOf(host.report('funclatency').text)).toBe(calls);
  });

  it("should print bcc funclatency's histogram, then its avg/total/count line", async () => {
    const { m, host } = await bootTracerHost();
    host.start('funclatency', ['do_sys_open']);
    run(m, ['cat', '/etc/motd']);
    const text = host.report('funclatency').text;
    const rows = text.split('\n');
    expect(rows[0]).toBe('     nsecs               : count     distribution');
    expect(rows[1]).toBe('         0 -> 1          : 0        |                                        |');
    expect(text).toMatch(/\n {7,}\d+ -> \d+ +: 1 {8}\|\*{40}\|\n\navg = (\d+) nsecs, total: \1 nsecs, count: 1\n$/);
  });

  it('should print one histogram per function with -F, under Function = NAME, and one summary', async () => {
    const { m, host } = await bootTracerHost();
    host.start('funclatency', ['-F', 'sys_*']);
    run(m, ['cat', '/etc/motd']);
    const text = host.report('funclatency').text;
    const sections = [...text.matchAll(/\nFunction = (\w+)\n {5}nsecs {15}: count {5}distribution\n/g)].map(
      (x) => x[1],
    );
    expect(sections).toEqual(expect.arrayContaining(['sys_read', 'sys_open', 'sys_write']));
    expect(sections.every((f) => f.startsWith('sys_'))).toBe(true);
    expect(text.match(/^avg = /gm)).toHaveLength(1);
    expect(text.startsWith('\nFunction = ')).toBe(true);
  });

  it('should measure in virtual ns: a longer function reads as slower than the one it calls', async () => {
    const totalOf = async (func: string) => {
      const { m, host } = await bootTracerHost();
      host.start('funclatency', [func]);
      run(m, ['cat', '/etc/motd']);
      const text = host.report('funclatency').text;
      return { total: Number(/total: (\d+) nsecs/.exec(text)?.[1]), count: countOf(text) };
    };
    const outer = await totalOf('sys_read');
    const inner = await totalOf('vfs_read');
    expect(outer.total).toBeGreaterThan(inner.total);
    expect(inner.total).toBeGreaterThan(0);
    expect([outer.count, inner.count]).toEqual([2, 2]);
  });

  it('should scale the histogram and the summary with -u, truncating as bcc does', async () => {
    const { m, host } = await bootTracerHost();
    host.start('funclatency', ['vfs_read']);
    const { m: m2, host: host2 } = await bootTracerHost();
    host2.start('funclatency', ['-u', 'vfs_read']);
    run(m, ['cat', '/etc/motd']);
    run(m2, ['cat', '/etc/motd']);
    const ns = Number(/total: (\d+) nsecs/.exec(host.report('funclatency').text)?.[1]);
    const us = host2.report('funclatency').text;
    expect(us.split('\n')[0]).toBe('     usecs               : count     distribution');
    expect(us).toMatch(new RegExp(`total: ${Math.trunc(ns / 1000)} usecs, count: 2\\n$`));
  });

  it('should remove its kretprobes on stop', async () => {
    const { fs, host } = await bootTracerHost();
    host.start('funclatency', ['vfs_read']);
    expect(listedProbes(fs)).toHaveLength(1);
    host.stop('funclatency');
    expect(listedProbes(fs)).toEqual([]);
  });

  it('should fail an unknown function with a PluginError, leave no probe, and keep the machine running', async () => {
    const { m, fs, host } = await bootTracerHost();
    expect(() => host.start('funclatency', ['no_such_function'])).toThrow(PluginError);
    expect(() => host.start('funclatency', ['no_such_function'])).toThrow(
      /^plugin '@int3\/funclatency': tracer 'funclatency': start\(no_such_function\) threw: /,
    );
    expect(() => host.start('funclatency', ['no_such_*'])).toThrow(/0 functions matched by "no_such_\*"/);
    expect(listedProbes(fs)).toEqual([]);
    expect(run(m, ['cat', '/etc/motd'])).toMatch(/^Welcome/);
  });

  it('should refuse bad arguments with a TracerUsageError, saying how to call it', async () => {
    const { host } = await bootTracerHost();
    for (const args of [[], ['-x', 'vfs_read'], ['vfs_read', 'vfs_write'], ['no_such_*']]) {
      expect(startCause(host, 'funclatency', args), args.join(' ')).toBeInstanceOf(TracerUsageError);
    }
    expect(startCause(host, 'funclatency', ['no_such_function'])).not.toBeInstanceOf(TracerUsageError);
    expect(() => host.start('funclatency')).toThrow(/no pattern; usage: funclatency \[-u\|-m\] \[-F\] PATTERN/);
    expect(() => host.start('funclatency', ['-x', 'vfs_read'])).toThrow(/unknown option '-x'; usage: /);
    expect(() => host.start('funclatency', ['vfs_read', 'vfs_write'])).toThrow(/one pattern only; usage: /);
  });
});
