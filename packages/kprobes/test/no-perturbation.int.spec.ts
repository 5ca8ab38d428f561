import { describe, expect, it } from 'vitest';
import { guestView, MIX_WORKLOADS } from './support/guest-view.js';

const WORKLOADS = MIX_WORKLOADS;

describe('instrumentation', () => {
  it('should leave a 4-CPU run exactly as it was: same interleaving, same output, same clocks', () => {
    const plain = guestView(WORKLOADS, () => {});
    let hits = 0;
    let boosted = 0;
    const probed = guestView(WORKLOADS, (_m, k) => {
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
