import { describe, expect, it } from 'vitest';
import { Kprobes, kprobesCore } from '../src/kprobes.js';
import { addr, bootWithKprobes } from './support/machine.js';

/** Every public member of a `Kprobes`: its fields, its prototype's methods and getters, its statics. */
function publicMembers(k: Kprobes): string[] {
  const own = Object.keys(k);
  const proto = Object.getOwnPropertyNames(Kprobes.prototype).filter((n) => n !== 'constructor');
  const statics = Object.getOwnPropertyNames(Kprobes).filter((n) => !['length', 'name', 'prototype'].includes(n));
  return [...own, ...proto, ...statics.map((n) => `static ${n}`)].sort();
}

describe(Kprobes, () => {
  it('should offer the registration API, debugfs, the optimizer, the config and queries, nothing of its insides', () => {
    const { k } = bootWithKprobes();
    const members = publicMembers(k);
    expect(members).toEqual([
      'config',
      'debugfs',
      'disableKprobe',
      'enableKprobe',
      'events$',
      'get',
      'optimization',
      'probes',
      'recoverProbedInstruction',
      'registerJprobe',
      'registerKprobe',
      'registerKprobes',
      'registerKretprobe',
      'sites',
      'static init',
      'unregisterJprobe',
      'unregisterKprobe',
      'unregisterKprobes',
      'unregisterKretprobe',
    ]);
    expect(members.length).toBeLessThanOrEqual(20);
  });

  it("should answer the queries the CLI asks: a site's slot, its detour, the probes in registration order", () => {
    const { m, k } = bootWithKprobes();
    const second = { symbolName: 'vfs_read', preHandler: () => 0 };
    const first = { symbolName: 'do_sys_open', preHandler: () => 0 };
    k.registerKprobe(first);
    k.registerKprobe(second);
    const site = k.get(addr(m, 'do_sys_open'))!;
    expect(site.slot).toBe(site.arch.slot);
    k.optimization.runNow();
    expect(site.optimized).toBe(true);
    const detour = k.optimization.detour(site.addr);
    expect(detour?.size).toBeGreaterThanOrEqual(5);
    expect(detour).toBe(kprobesCore(k).optimizer.detour(site));
    expect(k.optimization.detour(addr(m, 'do_sys_open') + 1n)).toBeUndefined();
    expect([...k.probes()].map((p) => p.kp)).toEqual([first, second]);
  });

  it('should switch the mechanism through its config, as the arch and the kretprobe booster see it', () => {
    const { k } = bootWithKprobes();
    const core = kprobesCore(k);
    expect([k.config.boosting, k.config.kretprobeBooster]).toEqual([true, true]);
    k.config.boosting = false;
    k.config.kretprobeBooster = false;
    expect([core.arch.boosting, core.kretprobes.booster]).toEqual([false, false]);
    expect(core.trampolineSite).toBeDefined();
    expect(() => {
      (k.config as { other?: boolean }).other = true;
    }).toThrow(TypeError);
  });
});
