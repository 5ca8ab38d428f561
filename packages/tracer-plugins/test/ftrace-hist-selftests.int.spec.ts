import { describe, expect, it } from 'vitest';
import type { TraceFs } from '../src/tracefs/trace-fs.js';
import { bootTraceFs, errnoOf, run } from './support/tracefs-machine.js';

/*
 * The cases of Linux's ftrace selftests for hist triggers (test.d/trigger/trigger-hist.tc and
 * trigger-hist-mod.tc), on kprobe events: the scripts' sched_process_fork becomes a return probe on
 * kernel_clone, its parent_pid the forking task's common_pid and its child_pid the return value
 * (`ret`); parent_comm becomes the file name do_sys_open opens; kmalloc's bytes_req becomes vfs_read's
 * count. The scripts' ten `( echo forked )` are a `fork 10` workload. The `.syscall` case is left out:
 * int3 has no raw_syscalls events and does not implement the `.syscall` modifier.
 */

const DEFS = [
  'r:forkret kernel_clone ret=$retval:s32',
  'p:openev do_sys_open filename=+0(%si):string',
  'p:readev vfs_read count=%dx:u64',
].join('\n');
const FORK = 'events/kprobes/forkret';

function boot() {
  const booted = bootTraceFs();
  booted.fs.write('kprobe_events', DEFS);
  return booted;
}

/** Lines of a hist file that are entries. */
function entries(fs: TraceFs, path: string): string[] {
  return fs
    .read(path)
    .split('\n')
    .filter((l) => l.startsWith('{'));
}

describe('trigger-hist.tc (event trigger - test histogram trigger)', () => {
  it('should count by a key and sum a value (basic trigger)', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/trigger`, 'hist:keys=common_pid:vals=ret');
    run(m, ['fork', '10']);
    const hist = fs.read(`${FORK}/hist`);
    expect(hist).toMatch(/common_pid/);
    expect(hist).toMatch(/ ret: /);
    expect(hist).toMatch(/Hits: 10\n/);
  });

  it('should make one entry per compound key', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/trigger`, 'hist:keys=common_pid,ret');
    run(m, ['fork', '10']);
    const lines = entries(fs, `${FORK}/hist`);
    expect(lines).toHaveLength(10);
    for (const l of lines) expect(l).toMatch(/^\{ common_pid:.*, ret:.*\}/);
  });

  it('should key on a string field', () => {
    const { m, fs } = boot();
    fs.write('events/kprobes/openev/trigger', 'hist:keys=filename');
    run(m, ['cat', '/etc/motd']);
    expect(fs.read('events/kprobes/openev/hist')).toMatch(/filename: \/etc\/motd {42}\} hitcount: {10}1\n/);
  });

  it('should sort by a key when asked (sort=ret.ascending)', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/trigger`, 'hist:keys=common_pid,ret:sort=ret.ascending');
    run(m, ['fork', '10']);
    const rets = entries(fs, `${FORK}/hist`).map((l) => Number(/ret: +(\d+)/.exec(l)?.[1]));
    expect(rets).toHaveLength(10);
    expect(rets).toEqual([...rets].sort((a, b) => a - b));
    fs.write(`${FORK}/trigger`, 'hist:keys=common_pid,ret:sort=ret.descending');
    run(m, ['fork', '3']);
    const desc = entries(fs, `${FORK}/hist`).map((l) => Number(/ret: +(\d+)/.exec(l)?.[1]));
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
  });
});

describe('trigger-hist-mod.tc (event trigger - test histogram modifiers)', () => {
  it('should name the task with .execname', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/trigger`, 'hist:keys=common_pid.execname');
    run(m, ['fork', '10']);
    expect(fs.read(`${FORK}/hist`)).toContain('{ common_pid: fork            [         1] } hitcount:         10\n');
  });

  it('should print a key in hex with .hex', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/trigger`, 'hist:keys=ret.hex');
    run(m, ['fork', '12']);
    expect(entries(fs, `${FORK}/hist`)).toContain('{ ret: c } hitcount:          1');
  });

  it('should bucket a key by powers of two with .log2', () => {
    const { m, fs } = boot();
    fs.write('events/kprobes/readev/trigger', 'hist:keys=count.log2');
    run(m, ['cat', '/etc/motd']);
    for (const l of entries(fs, 'events/kprobes/readev/hist')) expect(l).toMatch(/^\{ count: ~ 2\^\d+ +\}/);
    expect(entries(fs, 'events/kprobes/readev/hist').length).toBeGreaterThan(0);
  });

  it('should group a key with .buckets=N and name an address with .sym and .sym-offset', () => {
    const { m, fs } = boot();
    fs.write('events/kprobes/readev/trigger', 'hist:keys=count.buckets=100');
    fs.write('events/kprobes/readev/trigger', 'hist:keys=__probe_ip.sym', { append: true });
    fs.write('events/kprobes/openev/trigger', 'hist:keys=__probe_ip.sym-offset');
    run(m, ['cat', '/etc/motd']);
    const read = fs.read('events/kprobes/readev/hist');
    expect(read).toMatch(/\{ count: ~ 500-599 \}/);
    expect(read).toMatch(/\{ __probe_ip: \[ffffffff[0-9a-f]{8}\] vfs_read {37} \} hitcount:/);
    expect(fs.read('events/kprobes/openev/hist')).toMatch(
      /\{ __probe_ip: \[[0-9a-f]+\] do_sys_open\+0x0\/0x[0-9a-f]+ +\}/,
    );
  });

  it('should key on common_timestamp.usecs and common_cpu', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/trigger`, 'hist:keys=common_cpu:vals=common_timestamp.usecs');
    run(m, ['fork', '2']);
    const hist = fs.read(`${FORK}/hist`);
    expect(hist).toContain(':vals=hitcount,common_timestamp.usecs:sort=hitcount:size=2048:clock=global [active]');
    expect(hist).toMatch(/\{ common_cpu: {10}0 \} hitcount: {10}2 {2}common_timestamp: +\d+\n/);
  });
});

describe('hist file format (hist_trigger_show)', () => {
  it('should print the header, the entries, and the totals exactly as the kernel does', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/trigger`, 'hist:keys=ret:vals=hitcount:sort=ret:size=256 if ret < 4');
    run(m, ['fork', '3']);
    expect(fs.read(`${FORK}/hist`)).toBe(
      [
        '# event histogram',
        '#',
        '# trigger info: hist:keys=ret:vals=hitcount:sort=ret:size=256 if ret < 4 [active]',
        '#',
        '',
        '{ ret:          2 } hitcount:          1',
        '{ ret:          3 } hitcount:          1',
        '',
        'Totals:',
        '    Hits: 2',
        '    Entries: 2',
        '    Dropped: 0',
        '',
      ].join('\n'),
    );
  });

  it('should separate several histograms by two empty lines and read empty with none', () => {
    const { m, fs } = boot();
    expect(fs.read(`${FORK}/hist`)).toBe('');
    fs.write(`${FORK}/trigger`, 'hist:keys=ret');
    fs.write(`${FORK}/trigger`, 'hist:keys=common_pid', { append: true });
    run(m, ['fork', '1']);
    expect(fs.read(`${FORK}/hist`)).toMatch(/Dropped: 0\n\n\n# event histogram\n/);
  });

  it('should count drops past size entries', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/trigger`, 'hist:keys=ret:size=100');
    // Three runs of 50 forks: 150 child pids, one entry each, in a map of 128.
    for (let i = 0; i < 3; i++) run(m, ['fork', '50']);
    const hist = fs.read(`${FORK}/hist`);
    expect(hist).toContain(':size=128 [active]');
    expect(hist).toMatch(/Hits: 128\n {4}Entries: 128\n {4}Dropped: 22\n$/);
  });

  it('should give the same histogram for the same run twice', () => {
    const once = () => {
      const { m, fs } = boot();
      fs.write('events/kprobes/readev/trigger', 'hist:keys=common_pid.execname,count:vals=common_timestamp');
      run(m, ['cat', '/etc/motd'], ['fork', '2']);
      return fs.read('events/kprobes/readev/hist');
    };
    expect(once()).toBe(once());
  });
});

describe('hist trigger commands (event_hist_trigger_parse)', () => {
  it('should list hist triggers after the others, oldest first, and pause, continue and clear them', () => {
    const { m, fs } = boot();
    const t = `${FORK}/trigger`;
    fs.write(t, 'hist:keys=ret');
    fs.write(t, 'hist:keys=common_pid', { append: true });
    fs.write(t, 'traceon', { append: true });
    expect(fs.read(t)).toBe(
      [
        'traceon:unlimited',
        'hist:keys=ret:vals=hitcount:sort=hitcount:size=2048 [active]',
        'hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [active]',
        '',
      ].join('\n'),
    );
    fs.write(t, 'hist:keys=ret:pause', { append: true });
    expect(fs.read(t)).toContain('hist:keys=ret:vals=hitcount:sort=hitcount:size=2048 [paused]\n');
    run(m, ['fork', '2']);
    expect(fs.read(`${FORK}/hist`)).toMatch(/Hits: 0\n[\s\S]*Hits: 2\n/);
    fs.write(t, 'hist:keys=ret:cont', { append: true });
    run(m, ['fork', '1']);
    expect(fs.read(`${FORK}/hist`)).toMatch(/Hits: 1\n[\s\S]*Hits: 3\n/);
    fs.write(t, 'hist:keys=common_pid:clear', { append: true });
    expect(fs.read(`${FORK}/hist`)).toMatch(/Hits: 1\n[\s\S]*Hits: 0\n/);
  });

  it('should refuse a second identical trigger (EEXIST) and log it', () => {
    const { fs } = boot();
    fs.write(`${FORK}/trigger`, 'hist:keys=ret');
    expect(errnoOf(() => fs.write(`${FORK}/trigger`, 'hist:keys=ret', { append: true }))).toBe('EEXIST');
    expect(fs.read('error_log')).toMatch(
      /hist:kprobes:forkret: error: Hist trigger already exists\n {2}Command: hist:keys=ret\n {11}\^\n$/,
    );
  });

  it('should refuse to continue or clear a trigger that does not exist (ENOENT)', () => {
    const { fs } = boot();
    expect(errnoOf(() => fs.write(`${FORK}/trigger`, 'hist:keys=ret:cont'))).toBe('ENOENT');
    expect(errnoOf(() => fs.write(`${FORK}/trigger`, 'hist:keys=ret:clear'))).toBe('ENOENT');
    expect(fs.read('error_log')).toContain("error: Can't clear or continue a nonexistent hist trigger\n");
  });

  it.each([
    ['hist:keys=^nosuch', "Couldn't find field"],
    ['hist:keys=ret.^bogus', 'Invalid field modifier'],
    ['hist:keys=ret:^vals=', 'Empty assignment'],
    ['hist:keys=ret:sort=^nosuch', 'Sort field must be a key or a val'],
    ['hist:keys=ret:sort=ret.^sideways', 'Invalid sort modifier'],
    ['hist:keys=ret:^sort=ret,hitcount,common_pid', 'Too many sort fields (Max = 2)'],
  ])('should log %s to error_log as the kernel does (%s)', (marked, message) => {
    const { fs } = boot();
    const command = marked.replace('^', '');
    expect(errnoOf(() => fs.write(`${FORK}/trigger`, command))).toBe('EINVAL');
    const lines = fs.read('error_log').split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^\\[ *\\d+\\.\\d{6}\\] hist:kprobes:forkret: error: ${message.replace(/[()=]/g, '\\$&')}$`),
    );
    expect(lines[1]).toBe(`  Command: ${command}`);
    expect(lines[2]).toBe(`${' '.repeat(11 + marked.indexOf('^'))}^`);
  });

  it('should reject what has no keys, and a bad size, without a log entry', () => {
    const { fs } = boot();
    for (const bad of [
      'hist',
      'hist:vals=ret',
      'hist:keys=ret:size=64',
      'hist:keys=ret:size=1000000',
      'hist:keys=ret:size=x',
    ]) {
      expect(
        errnoOf(() => fs.write(`${FORK}/trigger`, bad)),
        bad,
      ).toBe('EINVAL');
    }
    expect(fs.read('error_log')).toBe('');
  });

  it('should remove the matching trigger with !hist, and all of them on a truncating write', () => {
    const { fs } = boot();
    const t = `${FORK}/trigger`;
    fs.write(t, 'hist:keys=ret');
    fs.write(t, 'hist:keys=ret if ret > 1', { append: true });
    fs.write(t, '!hist:keys=ret if ret > 1', { append: true });
    expect(fs.read(t)).toBe('hist:keys=ret:vals=hitcount:sort=hitcount:size=2048 [active]\n');
    expect(errnoOf(() => fs.write(t, '!hist:keys=common_pid', { append: true }))).toBe('ok');
    fs.write(t, 'hist:keys=common_pid', { append: true });
    fs.write(t, 'hist:keys=ret:vals=ret');
    expect(fs.read(t)).toBe('hist:keys=ret:vals=hitcount,ret:sort=hitcount:size=2048 [active]\n');
  });

  it('should share a named histogram between events, and refuse a named trigger that does not match', () => {
    const { m, fs } = boot();
    fs.write('events/kprobes/openev/trigger', 'hist:name=pids:keys=common_pid');
    fs.write('events/kprobes/readev/trigger', 'hist:name=pids:keys=common_pid');
    run(m, ['cat', '/etc/motd']);
    expect(fs.read('events/kprobes/readev/hist')).toBe(fs.read('events/kprobes/openev/hist'));
    expect(fs.read('events/kprobes/readev/hist')).toContain('# trigger info: hist:name=pids:keys=common_pid:');
    expect(errnoOf(() => fs.write(`${FORK}/trigger`, 'hist:name=pids:keys=ret'))).toBe('EINVAL');
    expect(fs.read('error_log')).toContain(
      "error: Named hist trigger doesn't match existing named trigger (includes variables)\n",
    );
  });

  it('should pause and resume another event’s histogram with disable_hist and enable_hist', () => {
    const { m, fs } = boot();
    fs.write('events/kprobes/readev/trigger', 'hist:keys=common_pid:pause');
    fs.write('events/kprobes/openev/trigger', 'enable_hist:kprobes:readev:1');
    expect(fs.read('events/kprobes/openev/trigger')).toBe('enable_hist:kprobes:readev:count=1\n');
    run(m, ['cat', '/etc/motd']);
    const hist = fs.read('events/kprobes/readev/hist');
    expect(hist).toContain('[active]');
    expect(hist).not.toMatch(/Hits: 0\n/);
  });
});
