import { describe, expect, it } from 'vitest';
import { KprobeEvents } from '../src/tracefs/kprobe-events.js';
import { bootTraceFs, errnoOf, listedProbes, run, traceLines } from './support/tracefs-machine.js';

describe(KprobeEvents, () => {
  it('should add and remove events, and register them [DISABLED] until enabled (add_and_remove)', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:myevent do_sys_open');
    expect(fs.read('kprobe_events')).toBe('p:kprobes/myevent do_sys_open\n');
    expect(fs.read('/sys/kernel/debug/kprobes/list')).toMatch(/do_sys_open\+0x0 +\[DISABLED\]/);
    fs.write('events/kprobes/myevent/enable', '1');
    expect(fs.read('/sys/kernel/debug/kprobes/list')).not.toMatch(/DISABLED/);
    fs.write('events/kprobes/myevent/enable', '0');
    fs.write('kprobe_events', '-:myevent', { append: true });
    expect(fs.read('kprobe_events')).toBe('');
    expect(listedProbes(fs)).toEqual([]);
    expect(fs.ls('events')).toEqual(['enable']);
  });

  it('should refuse to remove or clear an enabled event with EBUSY and change nothing (busy_check)', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:myevent do_sys_open\np:other vfs_read');
    fs.write('events/kprobes/myevent/enable', '1');
    expect(errnoOf(() => fs.write('kprobe_events', '-:myevent', { append: true }))).toBe('EBUSY');
    expect(errnoOf(() => fs.write('kprobe_events', ''))).toBe('EBUSY');
    expect(fs.read('kprobe_events')).toBe('p:kprobes/myevent do_sys_open\np:kprobes/other vfs_read\n');
    fs.write('events/kprobes/myevent/enable', '0');
    fs.write('kprobe_events', '');
    expect(fs.read('kprobe_events')).toBe('');
  });

  it('should fail removing an unknown event with ENOENT', () => {
    const { fs } = bootTraceFs();
    expect(errnoOf(() => fs.write('kprobe_events', '-:nope', { append: true }))).toBe('ENOENT');
  });

  it('should name events by default, by group and by event (kprobe_eventname)', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', 'p do_sys_open\np:mygrp/myev vfs_read\np:mygrp2/ vfs_write\nr vfs_read');
    expect(fs.read('available_events').split('\n').filter(Boolean)).toEqual([
      'kprobes:p_do_sys_open_0',
      'mygrp:myev',
      'mygrp2:p_vfs_write_0',
      'kprobes:r_vfs_read_0',
    ]);
    expect(fs.ls('events').sort()).toEqual(['enable', 'kprobes', 'mygrp', 'mygrp2']);
    expect(fs.ls('events/mygrp/myev')).toEqual(['enable', 'filter', 'format', 'hist', 'id', 'trigger']);
  });

  it('should append with >> and replace with >', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:a do_sys_open');
    fs.write('kprobe_events', 'p:b vfs_read', { append: true });
    expect(fs.read('kprobe_events')).toBe('p:kprobes/a do_sys_open\np:kprobes/b vfs_read\n');
    fs.write('kprobe_events', 'p:c vfs_write');
    expect(fs.read('kprobe_events')).toBe('p:kprobes/c vfs_write\n');
  });

  it('should join a second definition to an event, sharing its id, and remove one probe (kprobe_multiprobe)', () => {
    const { m, fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:myevent vfs_read\np:myevent do_sys_open');
    expect(fs.read('kprobe_events')).toBe('p:kprobes/myevent vfs_read\np:kprobes/myevent do_sys_open\n');
    expect(fs.ls('events/kprobes')).toEqual(['enable', 'myevent']);
    fs.write('events/kprobes/myevent/enable', '1');
    run(m, ['cat', '/etc/motd']);
    const text = traceLines(fs).join('\n');
    expect(text).toMatch(/myevent: \(vfs_read\+0x0/);
    expect(text).toMatch(/myevent: \(do_sys_open\+0x0/);
    expect(errnoOf(() => fs.write('kprobe_events', 'r:myevent vfs_write', { append: true }))).toBe('EEXIST');
    expect(errnoOf(() => fs.write('kprobe_events', 'p:myevent vfs_read', { append: true }))).toBe('EEXIST');
    fs.write('events/kprobes/myevent/enable', '0');
    fs.write('kprobe_events', '-:myevent do_sys_open', { append: true });
    expect(fs.read('kprobe_events')).toBe('p:kprobes/myevent vfs_read\n');
  });

  it('should define and enable many probes at once (multiple_kprobes)', () => {
    const { m, fs } = bootTraceFs();
    const syms = ['do_sys_open', 'vfs_read', 'vfs_write', 'ksys_read', 'sys_read', 'getname', 'fput', 'kmalloc'];
    fs.write('kprobe_events', syms.map((s, i) => `p:ev${i} ${s}`).join('\n'));
    expect(fs.read('kprobe_events').split('\n').filter(Boolean)).toHaveLength(syms.length);
    fs.write('events/enable', '1');
    expect(fs.read('events/enable')).toBe('1\n');
    expect(run(m, ['cat', '/etc/motd'])).toMatch(/^Welcome/);
    expect(traceLines(fs).length).toBeGreaterThan(syms.length);
    fs.write('events/kprobes/ev0/enable', '0');
    expect(fs.read('events/kprobes/enable')).toBe('X\n');
    fs.write('events/enable', '0');
    fs.write('kprobe_events', '');
    expect(listedProbes(fs)).toEqual([]);
  });

  it('should accept a probe on a module that is not loaded and keep it until removal', () => {
    const { fs } = bootTraceFs();
    fs.write('kprobe_events', 'p:modev nosuchmod:somefunc');
    expect(fs.read('kprobe_events')).toBe('p:kprobes/modev nosuchmod:somefunc\n');
  });
});
