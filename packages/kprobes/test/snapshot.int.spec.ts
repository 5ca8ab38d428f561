import { stateHash } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import type { Kprobe } from '../src/core/kprobe.js';
import type { Kretprobe } from '../src/core/kretprobe.js';
import { kprobesCore } from '../src/kprobes.js';
import { bootWithKprobes } from './support/machine.js';

describe('kprobes and machine snapshots', () => {
  it.each([1, 4])(
    'should rerun identically after restoring a snapshot taken mid-run with probes live (%i CPUs)',
    (cpus) => {
      const { m, k } = bootWithKprobes(cpus, 700);
      const counts = { k: 0, r: 0 };
      k.registerKprobe({
        symbolName: 'do_syscall_64',
        preHandler: () => {
          counts.k++;
          return 0;
        },
      });
      const rp: Kretprobe = { kp: { symbolName: 'do_syscall_64' }, maxactive: 2, handler: () => void counts.r++ };
      k.registerKretprobe(rp);
      const tasks = [
        ['fork', '3'],
        ['net', '2'],
        ['cat', '/etc/motd'],
      ].map((argv) => m.spawn(argv));
      const done = () => tasks.every((t) => t.exited);
      // Stop in the middle, at a round boundary, with returns in flight (the fork parent waits in a syscall).
      m.run({ until: () => kprobesCore(k).kretprobes.activeInstances > 0 || done() });
      expect(done()).toBe(false);
      expect(kprobesCore(k).kretprobes.activeInstances).toBeGreaterThan(0);
      const snap = m.snapshot();
      const at = {
        ...counts,
        console: m.console.length,
        nmissed: rp.kp.nmissed,
        rpMissed: rp.nmissed,
      };
      m.run({ until: done });
      const first = { hash: stateHash(m), counts: { ...counts }, out: m.console.map((c) => c.text) };
      m.restore(snap);
      counts.k = at.k;
      counts.r = at.r;
      expect(m.console.length).toBe(at.console);
      // The misses counted by then come back with the snapshot (kprobes-state.ts saves them).
      expect([rp.kp.nmissed, rp.nmissed]).toEqual([at.nmissed, at.rpMissed]);
      expect(at.rpMissed).toBeTypeOf('number');
      m.run({ until: done });
      expect({ hash: stateHash(m), counts: { ...counts }, out: m.console.map((c) => c.text) }).toEqual(first);
      expect(first.counts.r).toBeGreaterThan(0);
    },
  );

  it('should hold the registrations: a probe registered after the snapshot is gone once it is restored, one unregistered since is back', () => {
    const { m, k } = bootWithKprobes(1, 700);
    let early = 0;
    let late = 0;
    const kp: Kprobe = {
      symbolName: 'do_sys_open',
      preHandler: () => {
        early++;
        return 0;
      },
    };
    const rp: Kretprobe = { kp: { symbolName: 'do_sys_open' }, handler: () => {} };
    k.registerKprobe(kp);
    const snap = m.snapshot();
    const addr = kp.addr!;
    const lateKp: Kprobe = {
      symbolName: 'ksys_read',
      preHandler: () => {
        late++;
        return 0;
      },
    };
    k.registerKprobe(lateKp);
    k.registerKretprobe(rp);
    k.unregisterKprobe(kp);
    expect(
      kprobesCore(k)
        .get(addr)
        ?.children.map((c) => c.kp),
    ).toEqual([rp.kp]);
    m.restore(snap);
    // Registered again as at the snapshot (the restored memory holds its int3); the later ones are not.
    expect(kp.addr).toBe(addr);
    expect(lateKp.addr).toBeUndefined();
    expect(
      kprobesCore(k)
        .get(addr)
        ?.children.map((c) => c.kp),
    ).toEqual([kp]);
    expect(k.debugfs.list()).not.toContain('ksys_read');
    expect(kprobesCore(k).stateOf(rp.kp)).toBeUndefined();
    const t = m.spawn(['cat', '/etc/motd']);
    m.run({ until: () => t.exited });
    expect(early).toBeGreaterThan(0);
    expect(late).toBe(0);
    // Registering the later probes again works, as it did the first time.
    k.registerKprobe(lateKp);
    k.registerKretprobe(rp);
    expect(lateKp.addr).toBeDefined();
  });

  it('should hold the instruction slots: registering after restoring a snapshot from before the first probe takes a slot of a new page again', () => {
    const { m, k } = bootWithKprobes(1, 700);
    const snap = m.snapshot();
    const first: Kprobe = { symbolName: 'do_sys_open', preHandler: () => 0 };
    k.registerKprobe(first);
    const hash = stateHash(m);
    m.restore(snap);
    expect(first.addr).toBeUndefined();
    const again: Kprobe = { symbolName: 'do_sys_open', preHandler: () => 0 };
    k.registerKprobe(again);
    expect(stateHash(m)).toBe(hash);
  });
});
