import { describe, expect, it } from 'vitest';
import { run, traceLines } from '../../test/support/tracefs-machine.js';
import { PluginError } from '../plugins/plugin-error.js';
import { bootTracerHost } from '../tracers/tracer-host.fixture.js';
import { BpftraceError } from './bpftrace-error.js';
import { BpftraceTracer } from './bpftrace-tracer.js';

/** Runs a program over `cat /etc/motd` and returns its streams. */
async function bpftrace(program: string, args: string[] = [], workload = ['cat', '/etc/motd'], cpus = 1) {
  const { m, fs, host } = await bootTracerHost(cpus);
  host.start('bpftrace', [...args, program]);
  run(m, workload);
  host.stop('bpftrace');
  return { ...host.drain('bpftrace'), fs };
}

describe(BpftraceTracer, () => {
  it('should count vfs_read calls by comm as the kprobe_events record counts them', async () => {
    const { m, fs, host } = await bootTracerHost();
    fs.write('kprobe_events', 'p:vr vfs_read');
    fs.write('events/kprobes/enable', '1');
    host.start('bpftrace', ['kprobe:vfs_read { @[comm] = count(); }']);
    run(m, ['cat', '/etc/motd']);
    host.stop('bpftrace');
    const calls = traceLines(fs).filter((l) => l.includes(' vr: ')).length;
    expect(calls).toBeGreaterThan(0);
    const r = host.drain('bpftrace');
    expect(r.stderr).toBe('Attached 1 probe\n');
    expect(r.stdout).toBe(`\n\n@[cat]: ${calls}\n`);
  });

  it('should attach every function a wildcard matches and report each as probe and func', async () => {
    const r = await bpftrace('kprobe:vfs_* { @[probe, func] = count(); }');
    expect(r.stderr).toMatch(/^Attached \d+ probes\n$/);
    expect(r.stdout).toMatch(/@\[kprobe:vfs_read, vfs_read\]: \d+\n/);
    expect(r.stdout).toMatch(/@\[kprobe:vfs_write, vfs_write\]: \d+\n/);
  });

  it('should read arguments and return values: a histogram of read sizes, a sum of returns', async () => {
    const r = await bpftrace(
      'kprobe:vfs_read { @sz = hist(arg2); } kretprobe:vfs_read { @ret = sum(retval); @n = count(); }',
    );
    expect(r.stderr).toBe('Attached 2 probes\n');
    expect(r.stdout).toMatch(/^\n\n@n: \d+\n@ret: \d+\n@sz:\n\[.*\d+ \|@+ *\|\n/m);
  });

  it('should filter with a predicate and print with printf as it runs, before the maps', async () => {
    const r = await bpftrace('kprobe:vfs_read /comm == "cat"/ { printf("%s %d\\n", comm, pid); @ = count(); }');
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^cat \d+$/);
    expect(r.stdout).toMatch(/\n\n\n@: \d+\n$/);
  });

  it('should unwind kstack by frame pointers, the probed function (one past its int3) first, then its caller', async () => {
    const r = await bpftrace('kprobe:vfs_read { @[kstack] = count(); }');
    expect(r.stdout).toMatch(
      /^\n\n@\[\n {8}vfs_read\+1\n {8}ksys_read\+\d+\n {8}sys_read\+\d+\n {8}do_syscall_64\+\d+\n {8}entry_SYSCALL_64\+\d+\n\]: \d+\n/,
    );
  });

  it('should stop recording at exit(), still run end, and say so with exit status 0', async () => {
    const r = await bpftrace('kprobe:vfs_read { @ = count(); exit(); } end { printf("bye\\n"); }');
    expect(r.exit).toBe(0);
    expect(r.stdout).toBe('bye\n\n\n@: 1\n');
  });

  it("should hand out exit(code)'s code, the first exit() deciding, in its low 8 bits", async () => {
    expect((await bpftrace('kprobe:vfs_read { exit(3); }')).exit).toBe(3);
    expect((await bpftrace('kprobe:vfs_read { @n = count(); if (@n == 2) { exit(7); } exit(9); }')).exit).toBe(9);
    expect((await bpftrace('begin { exit(256 + 4); }')).exit).toBe(4);
    expect((await bpftrace('kprobe:vfs_read { @ = count(); }')).exit).toBeUndefined();
  });

  it('should drain printf output as it comes: what a drain handed out is not handed out again', async () => {
    const { m, host } = await bootTracerHost();
    host.start('bpftrace', ['kprobe:vfs_read { printf("r %d\\n", arg2); } end { printf("end\\n"); }']);
    expect(host.drain('bpftrace')).toEqual({ stdout: '', stderr: 'Attached 2 probes\n' });
    run(m, ['cat', '/etc/motd']);
    const during = host.drain('bpftrace');
    expect(during.stdout).toMatch(/^(r \d+\n)+$/);
    expect(during.stderr).toBe('');
    expect(host.drain('bpftrace').stdout).toBe('');
    host.stop('bpftrace');
    expect(host.report('bpftrace').text).toBe('end\n\n\n');
    expect(host.drain('bpftrace')).toEqual({ stdout: 'end\n\n\n', stderr: '' });
    expect(host.report('bpftrace').text).toBe('');
  });

  it('should print JSON lines with -f json, attached_probes first', async () => {
    const r = await bpftrace('kprobe:vfs_read { @c = count(); }', ['-f', 'json']);
    expect(r.stdout).toMatch(
      /^\{"type": "attached_probes", "count": 1, "data": \{"probes": 1\}\}\n\{"type": "map", "data": \{"@c": \d+\}\}\n$/,
    );
  });

  it('should fire interval probes on virtual time', async () => {
    const r = await bpftrace('interval:us:1 { @ticks = count(); }');
    expect(Number(/@ticks: (\d+)/.exec(r.stdout)?.[1])).toBeGreaterThan(0);
  });

  it('should give identical output for the same program run twice', async () => {
    const prog =
      'kprobe:vfs_read { @[comm] = hist(nsecs % 1000); printf("%d\\n", nsecs); } profile:hz:10000 { @p[cpu] = count(); }';
    const a = await bpftrace(prog, [], ['cat', '/etc/motd'], 2);
    const b = await bpftrace(prog, [], ['cat', '/etc/motd'], 2);
    expect(a.stdout).toBe(b.stdout);
  });

  it('should refuse an attach point that matches no function, attaching nothing', async () => {
    const { host, m } = await bootTracerHost();
    let thrown: unknown;
    try {
      host.start('bpftrace', ['kprobe:vfs_read { 1 } kprobe:nosuch { 1 }']);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PluginError);
    const cause = (thrown as PluginError).cause;
    expect(cause).toBeInstanceOf(BpftraceError);
    expect((cause as BpftraceError).message).toBe('No matches for kprobe nosuch.');
    expect((cause as BpftraceError).location).toMatchObject({ line: 1, column: 23, endColumn: 36 });
    expect(m.kallsyms.lookupName('vfs_read')).toBeDefined();
  });
});
