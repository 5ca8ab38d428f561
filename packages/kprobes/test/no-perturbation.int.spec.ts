import type { Machine, TaskEvent } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import type { Kprobes } from '../src/core/kprobes.js';
import { bootWithKprobes } from './support/machine.js';

const WORKLOADS = [
  ['fork', '4'],
  ['net', '3'],
  ['dd', '3'],
  ['cat', '/etc/motd'],
  ['mkdir', '/tmp/p'],
  ['spin', '3000'],
];

/** Everything the guest can see of a run: console, task lifecycle, kernel log, each CPU's clock. */
function guestView(probe: (m: Machine, k: Kprobes) => void) {
  const { m, k } = bootWithKprobes(4, 2000);
  probe(m, k);
  const tasks: TaskEvent[] = [];
  m.tasks$.subscribe((e) => tasks.push(e));
  const started = WORKLOADS.map((argv) => m.spawn(argv));
  expect(m.run({ until: () => started.every((t) => t.exited) })).toEqual({ reason: 'done' });
  return {
    console: m.console.map((c) => `${c.at} cpu${c.cpu} pid${c.pid} ${c.text}`),
    tasks: tasks.map((t) => JSON.stringify(t)),
    printk: m.printk.records().map((r) => `${r.timestampNs} ${r.cpu} ${r.text}`),
    clocks: m.cpus.map((_, c) => m.clock(c)),
    exits: started.map((t) => t.exitCode),
  };
}

describe('instrumentation', () => {
  it('should leave a 4-CPU run exactly as it was: same interleaving, same output, same clocks', () => {
    const plain = guestView(() => {});
    let hits = 0;
    let boosted = 0;
    const probed = guestView((_m, k) => {
      // Boosted hits (kretprobes' entry probes have no post-handler) must be as invisible as stepped ones.
      k.events$.subscribe((e) => {
        if (e.type === 'kprobe:hit' && e.path === 'boosted') boosted++;
      });
      for (const symbolName of [
        'vfs_read',
        'vfs_write',
        'do_syscall_64',
        'kmalloc',
        'tcp_sendmsg',
        '__blockdev_direct_IO',
        'schedule',
      ]) {
        k.registerKprobe({
          symbolName,
          preHandler: () => {
            hits++;
            return 0;
          },
          postHandler: () => {},
        });
      }
      k.registerKprobe({ symbolName: 'vfs_read', preHandler: () => 0 });
      for (const symbolName of ['sys_read', 'kmalloc', 'do_sys_open', 'ip_queue_xmit']) {
        k.registerKretprobe({ kp: { symbolName }, handler: () => {} });
      }
      k.registerJprobe({ kp: { symbolName: 'sys_mkdir' }, entry: () => {} });
    });
    expect(hits).toBeGreaterThan(100);
    expect(boosted).toBeGreaterThan(0);
    expect(probed.exits).toEqual(plain.exits);
    expect(probed.console).toEqual(plain.console);
    expect(probed.tasks).toEqual(plain.tasks);
    expect(probed.printk).toEqual(plain.printk);
    expect(probed.clocks).toEqual(plain.clocks);
  });
});
