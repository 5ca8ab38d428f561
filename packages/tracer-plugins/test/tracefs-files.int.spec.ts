import { describe, expect, it } from 'vitest';
import { TraceFs } from '../src/tracefs/trace-fs.js';
import { bootTraceFs, errnoOf, run, traceLines } from './support/tracefs-machine.js';

describe(TraceFs, () => {
  it('should count hits only while enabled, in kprobe_profile format (profile)', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:myevent do_sys_open');
    expect(fs.read('kprobe_profile')).toMatch(/^ {2}myevent {37} {15}0 {15}0\n$/);
    run(m, ['cat', '/etc/motd']);
    expect(fs.read('kprobe_profile')).toMatch(/myevent\s+0\s+0$/m);
    fs.write('events/kprobes/myevent/enable', '1');
    run(m, ['cat', '/etc/motd'], ['cat', '/etc/motd']);
    expect(fs.read('kprobe_profile')).toMatch(/myevent\s+2\s+0$/m);
  });

  it('should apply the event filter before recording', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:f do_sys_open dfd=%di:s32 name=+0(%si):string');
    fs.write('events/kprobes/f/filter', 'name ~ "*passwd"');
    expect(fs.read('events/kprobes/f/filter')).toBe('name ~ "*passwd"\n');
    fs.write('events/kprobes/f/enable', '1');
    run(m, ['cat', '/etc/motd']);
    expect(traceLines(fs)).toEqual([]);
    // A rejected record is discarded from its reservation: neither kept nor counted as written.
    expect(fs.read('trace')).toMatch(/entries-in-buffer\/entries-written: 0\/0 /);
    expect(fs.read('per_cpu/cpu0/stats')).toMatch(/^entries: 0\n[\s\S]*\nbytes: 0\n/);
    fs.write('events/kprobes/f/filter', 'dfd == -100');
    run(m, ['cat', '/etc/motd']);
    expect(traceLines(fs)).toHaveLength(1);
    expect(errnoOf(() => fs.write('events/kprobes/f/filter', 'nosuch == 1'))).toBe('EINVAL');
  });

  it('should not record while tracing_on is 0, and clear on echo > trace', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:o do_sys_open');
    fs.write('events/kprobes/o/enable', '1');
    fs.write('tracing_on', '0');
    expect(fs.read('tracing_on')).toBe('0\n');
    run(m, ['cat', '/etc/motd']);
    expect(traceLines(fs)).toEqual([]);
    fs.write('tracing_on', '1');
    run(m, ['cat', '/etc/motd']);
    expect(fs.read('trace')).toMatch(/entries-in-buffer\/entries-written: 1\/1 {3}#P:1/);
    fs.write('trace', '');
    expect(traceLines(fs)).toEqual([]);
  });

  it('should consume records through trace_pipe', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:o do_sys_open');
    fs.write('events/kprobes/o/enable', '1');
    run(m, ['cat', '/etc/motd']);
    expect(fs.read('trace_pipe')).toMatch(
      /^ +cat-\d+ +\[000\] d\.\.\.\. +\d+\.\d{6}: o: \(do_sys_open\+0x0\/0x[0-9a-f]+\)\n$/,
    );
    expect(fs.read('trace_pipe')).toBe('');
  });

  it('should resize the per-CPU buffer with buffer_size_kb and reject 0', () => {
    const { fs } = bootTraceFs(2);
    expect(fs.read('buffer_size_kb')).toBe('1408\n');
    fs.write('buffer_size_kb', '64');
    expect(fs.read('buffer_size_kb')).toBe('64\n');
    expect(fs.read('buffer_total_size_kb')).toBe('128\n');
    expect(errnoOf(() => fs.write('buffer_size_kb', '0'))).toBe('EINVAL');
  });

  it('should refuse a buffer_size_kb it cannot allocate with ENOMEM, keeping the buffer it has', () => {
    const { fs } = bootTraceFs(2);
    fs.write('buffer_size_kb', '65536');
    expect(fs.read('buffer_total_size_kb')).toBe('131072\n');
    for (const kb of ['65537', '99999999999', '0xffffffffffff']) {
      expect(errnoOf(() => fs.write('buffer_size_kb', kb))).toBe('ENOMEM');
    }
    expect(fs.read('buffer_size_kb')).toBe('65536\n');
  });

  it('should log rejected commands to error_log with a caret and clear it (kprobe_syntax_errors)', () => {
    const { fs } = bootTraceFs();
    expect(errnoOf(() => fs.write('kprobe_events', 'p vfs_read $retval'))).toBe('EINVAL');
    expect(fs.read('error_log')).toMatch(
      /^\[ +\d+\.\d{6}\] trace_kprobe: error: \$retval is not available on probe\n {2}Command: p vfs_read \$retval\n {22}\^\n$/,
    );
    expect(errnoOf(() => fs.write('kprobe_events', 'p nosuchsym', { append: true }))).toBe('ENOENT');
    expect(fs.read('error_log')).toMatch(/Invalid probed address or symbol\n {2}Command: p nosuchsym\n {13}\^\n$/);
    expect(errnoOf(() => fs.write('kprobe_events', 'p vfs_read+2', { append: true }))).toBe('EILSEQ');
    expect(fs.read('error_log')).toMatch(/Probe point is not an instruction boundary/);
    expect(errnoOf(() => fs.write('kprobe_events', 'x vfs_read', { append: true }))).toBe('EINVAL');
    fs.write('error_log', '');
    expect(fs.read('error_log')).toBe('');
    expect(fs.read('kprobe_events')).toBe('');
  });

  it('should stop a multi-line write at the first bad line, keeping the lines before it', () => {
    const { fs } = bootTraceFs();
    expect(errnoOf(() => fs.write('kprobe_events', 'p:a vfs_read\np:b nosuch\np:c vfs_write'))).toBe('ENOENT');
    expect(fs.read('kprobe_events')).toBe('p:kprobes/a vfs_read\n');
  });

  it('should expose id and format, README strings, and reject bad paths', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:myprobe do_sys_open dfd=%ax');
    const id = fs.read('events/kprobes/myprobe/id');
    expect(fs.read('events/kprobes/myprobe/format')).toContain(`ID: ${id}`);
    expect(fs.read('events/kprobes/myprobe/format')).toMatch(
      /print fmt: "\(%lx\) dfd=0x%Lx", REC->__probe_ip, REC->dfd/,
    );
    const readme = fs.read('/sys/kernel/tracing/README');
    for (const s of ['r[maxactive]', '$arg<N>', 'imm-value', 'Create/append/', 'x8/16/32/64'])
      expect(readme).toContain(s);
    expect(errnoOf(() => fs.read('nosuch'))).toBe('ENOENT');
    expect(errnoOf(() => fs.read('events'))).toBe('EISDIR');
    expect(errnoOf(() => fs.write('kprobe_profile', 'x'))).toBe('EACCES');
    expect(errnoOf(() => fs.write('events/kprobes/myprobe/enable', '2'))).toBe('EINVAL');
    expect(fs.ls('/sys/kernel/debug/kprobes')).toEqual(['blacklist', 'enabled', 'list']);
    expect(fs.read('/sys/kernel/debug/kprobes/enabled')).toBe('1\n');
  });

  it('should switch jump optimization with /proc/sys/debug/kprobes-optimization, as the sysctl does', () => {
    const { m, k, fs } = bootTraceFs();
    const sysctl = '/proc/sys/debug/kprobes-optimization';
    expect(fs.ls('/proc/sys/debug')).toEqual(['kprobes-optimization']);
    expect(fs.read(sysctl)).toBe('1\n');
    fs.write('kprobe_events', 'p:myevent do_sys_open');
    fs.write('events/kprobes/myevent/enable', '1');
    k.optimization.runNow();
    expect(fs.read('/sys/kernel/debug/kprobes/list')).toMatch(/ k {2}do_sys_open\+0x0 {4}\[OPTIMIZED\]\n$/);
    fs.write(sysctl, '0\n');
    k.optimization.runNow();
    expect(fs.read(sysctl)).toBe('0\n');
    expect(fs.read('/sys/kernel/debug/kprobes/list')).toMatch(/ k {2}do_sys_open\+0x0 {4}\n$/);
    expect(m.printk.dmesg()).toContain('Kprobes globally unoptimized');
    for (const bad of ['2', '-1', 'x', '']) expect(errnoOf(() => fs.write(sysctl, bad))).toBe('EINVAL');
    run(m, ['cat', '/etc/motd']);
    expect(traceLines(fs)).toHaveLength(1);
    fs.write(sysctl, '1');
    k.optimization.runNow();
    expect(fs.read('/sys/kernel/debug/kprobes/list')).toMatch(/\[OPTIMIZED\]\n$/);
    expect(m.printk.dmesg()).toContain('Kprobes globally optimized');
  });
});
