import { describe, expect, it } from 'vitest';
import { guestView, MIX_WORKLOADS } from './support/guest-view.js';

const WORKLOADS = MIX_WORKLOADS;

describe('instrumentation with jump-optimized probes', () => {
  it.each([
    ['optimized before the run', true],
    ['optimized during the run, by the delayed optimizer', false],
  ])('should leave a 4-CPU run exactly as it was (%s)', (_name, now) => {
    // The delayed optimizer runs 5 jiffies (5 ms of virtual time) after the registrations: a long spin
    // keeps the others company past that point.
    const workloads = now ? WORKLOADS : [...WORKLOADS, ['spin', '450000']];
    const plain = guestView(workloads, () => {});
    const paths = { optimized: 0, detour: 0, other: 0 };
    let hits = 0;
    const probed = guestView(workloads, (_m, k) => {
      k.events$.subscribe((e) => {
        if (e.type !== 'kprobe:hit') return;
        if (e.path === 'optimized') paths.optimized++;
        else if (e.path === 'detour') paths.detour++;
        else paths.other++;
      });
      for (const symbolName of ['vfs_read', 'vfs_write', 'do_syscall_64', 'kmalloc', 'tcp_sendmsg', 'schedule']) {
        k.registerKprobe({
          symbolName,
          preHandler: (_p, regs) => {
            hits++;
            // Clobbering what the probed code never sees (ip is ignored when optimized) is harmless.
            regs.ip = 0n;
            return 0;
          },
        });
      }
      for (const symbolName of ['sys_read', 'do_sys_open', 'ip_queue_xmit']) {
        k.registerKretprobe({ kp: { symbolName }, handler: () => {} });
      }
      if (now) k.optimization.runNow();
    });
    expect(hits).toBeGreaterThan(100);
    expect(paths.optimized).toBeGreaterThan(0);
    if (!now) expect(paths.detour).toBeGreaterThan(0);
    expect(probed.exits).toEqual(plain.exits);
    expect(probed.console).toEqual(plain.console);
    expect(probed.tasks).toEqual(plain.tasks);
    expect(probed.printk).toEqual(plain.printk);
    expect(probed.clocks).toEqual(plain.clocks);
  });
});
