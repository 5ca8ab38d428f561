import { describe, expect, it } from 'vitest';
import { guestView, MIX_WORKLOADS } from './support/guest-view.js';

const WORKLOADS = MIX_WORKLOADS;

describe('instrumentation', () => {
  it.each([
    ['with', true],
    ['without', false],
  ])(
    'should leave a 4-CPU run exactly as it was, %s the kretprobe booster: same interleaving, output, clocks',
    (_, booster) => {
      const plain = guestView(WORKLOADS, () => {});
      let hits = 0;
      let boosted = 0;
      let returns = 0;
      const probed = guestView(WORKLOADS, (_m, k) => {
        // Boosted hits (the 2.6.12 trampoline's `ret` has no post-handler) must be as invisible as stepped
        // ones, and the booster's trampoline as invisible as the int3 one.
        k.config.kretprobeBooster = booster;
        k.events$.subscribe((e) => {
          if (e.type === 'kprobe:hit' && e.path === 'boosted') boosted++;
          if (e.type === 'kretprobe:trampoline-hit') returns++;
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
      expect(returns).toBeGreaterThan(10);
      if (!booster) expect(boosted).toBeGreaterThan(0);
      expect(probed.exits).toEqual(plain.exits);
      expect(probed.console).toEqual(plain.console);
      expect(probed.tasks).toEqual(plain.tasks);
      expect(probed.printk).toEqual(plain.printk);
      expect(probed.clocks).toEqual(plain.clocks);
    },
  );
});
