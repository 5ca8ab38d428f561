import { stateHash, TICK_NS } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import type { Kprobe } from '../src/core/kprobe.js';
import { kprobesCore } from '../src/kprobes.js';
import { bootWithKprobes } from './support/machine.js';

describe('jump-optimized kprobes and machine snapshots', () => {
  it.each([
    ['queued', ['spin', '450000']],
    ['optimized', ['spin', '3000']],
  ])('should rerun identically after restoring a snapshot taken with the probe %s', (phase, spin) => {
    const { m, k } = bootWithKprobes(2, 700);
    let hits = 0;
    const kp: Kprobe = { symbolName: 'vfs_read', preHandler: () => void hits++ };
    k.registerKretprobe({ kp: { symbolName: 'do_syscall_64' }, maxactive: 4, handler: () => {} });
    k.registerKprobe(kp);
    if (phase === 'optimized') k.optimization.runNow();
    const site = k.get(kp.addr!)!;
    const tasks = [['cat', '/etc/motd'], ['dd', '2'], ['fork', '2'], spin].map((argv) => m.spawn(argv));
    const done = () => tasks.every((t) => t.exited);
    m.run({ until: () => hits > 0 || done() });
    expect(done()).toBe(false);
    expect(kprobesCore(k).optimizer.phase(site)).toBe(phase);
    const snap = m.snapshot();
    const at = { hits, bytes: m.space.read(site.addr, 8) };
    m.run({ until: done });
    expect(site.optimized).toBe(true);
    const first = { hash: stateHash(m), hits, out: m.console.map((c) => c.text), optimized: site.optimized };
    m.restore(snap);
    hits = at.hits;
    expect(kprobesCore(k).optimizer.phase(site)).toBe(phase);
    expect(site.optimized).toBe(phase === 'optimized');
    expect(m.space.read(site.addr, 8)).toEqual(at.bytes);
    m.run({ until: done });
    expect({ hash: stateHash(m), hits, out: m.console.map((c) => c.text), optimized: site.optimized }).toEqual(first);
    if (phase === 'queued') expect(m.clock(0)).toBeGreaterThan(5 * TICK_NS);
  });

  it('should put an optimized probe back after an unoptimization that happened since the snapshot', () => {
    const { m, k } = bootWithKprobes(1);
    const kp: Kprobe = { symbolName: 'sys_mkdir', preHandler: () => 0 };
    k.registerKprobe(kp);
    k.optimization.runNow();
    const site = k.get(kp.addr!)!;
    const bytes = m.space.read(site.addr, 8);
    const snap = m.snapshot();
    k.optimization.enabled = false;
    k.optimization.runNow();
    expect(site.optimized).toBe(false);
    m.restore(snap);
    expect(k.optimization.enabled).toBe(true);
    expect(site.optimized).toBe(true);
    expect(kprobesCore(k).optimizer.phase(site)).toBe('optimized');
    expect(m.space.read(site.addr, 8)).toEqual(bytes);
  });
});
