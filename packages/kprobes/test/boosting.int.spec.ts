import type { Machine } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import type { X86Site } from '../src/arch/x86/x86-site.js';
import type { Kprobe } from '../src/core/kprobe.js';
import type { KprobeEvent } from '../src/core/kprobe-event.js';
import type { Kprobes } from '../src/kprobes.js';
import { assemble } from './support/assemble.js';
import { addr, bootWithKprobes, boundaries, findInsn, run, x86 } from './support/machine.js';

/** A booted machine with jump optimization off: an optimized probe would take no int3 at all. */
function boot(cpus?: number, quantum?: number): { m: Machine; k: Kprobes } {
  const booted = bootWithKprobes(cpus, quantum);
  booted.k.optimization.enabled = false;
  return booted;
}

/** Calls `sym(arg)` and returns its result with the #BP/#DB traps it took. */
function callCounting(m: Machine, sym: string, arg: bigint): { result: bigint; traps: number[] } {
  const traps: number[] = [];
  const sub = m.streams.traps$.subscribe((t) => {
    if (t.vector === 1 || t.vector === 3) traps.push(t.vector);
  });
  const result = m.kernel.guest.call(0, addr(m, sym), [arg]);
  sub.unsubscribe();
  return { result, traps };
}

function hitPaths(k: Kprobes): { paths: string[]; boosted: KprobeEvent[] } {
  const paths: string[] = [];
  const boosted: KprobeEvent[] = [];
  k.events$.subscribe((e) => {
    if (e.type === 'kprobe:hit') paths.push(e.path);
    if (e.type === 'kprobe:boosted') boosted.push(e);
  });
  return { paths, boosted };
}

describe('boosting (KprobeBooster)', () => {
  it('should take one trap instead of two from the second hit on, with the same result', () => {
    const { m, k } = boot();
    const seen = hitPaths(k);
    let hits = 0;
    k.registerKprobe({
      symbolName: 'kprobe_target',
      preHandler: () => {
        hits++;
        return 0;
      },
    });
    expect(callCounting(m, 'kprobe_target', 9n)).toEqual({ result: 3n, traps: [3, 1] });
    expect(callCounting(m, 'kprobe_target', 30n)).toEqual({ result: 10n, traps: [3] });
    expect(callCounting(m, 'kprobe_target', 31n)).toEqual({ result: 10n, traps: [3] });
    expect(hits).toBe(3);
    expect(seen.paths).toEqual(['int3', 'boosted', 'boosted']);
    const site = k.get(addr(m, 'kprobe_target'))!;
    const x = site.arch as X86Site;
    expect(seen.boosted).toEqual([
      expect.objectContaining({ addr: site.addr, slot: x.slot, jmpBack: site.addr + BigInt(x.length) }),
    ]);
    // The slot holds the copy then jmp rel32 back, and the jump costs no virtual time.
    const jmp = m.space.read(x.slot + BigInt(x.length), 5);
    expect(jmp[0]).toBe(0xe9);
  });

  it('should cost no virtual time: a boosted call retires as many virtual instructions as an unprobed one', () => {
    const { m, k } = boot();
    const virtualCost = () => {
      const before = m.cpus[0].virtualRetired;
      m.kernel.guest.call(0, addr(m, 'kprobe_target'), [9n]);
      return m.cpus[0].virtualRetired - before;
    };
    const unprobed = virtualCost();
    k.registerKprobe({ symbolName: 'kprobe_target', preHandler: () => 0 });
    expect([virtualCost(), virtualCost(), virtualCost()]).toEqual([unprobed, unprobed, unprobed]);
    expect((k.get(addr(m, 'kprobe_target'))!.arch as X86Site).boost.boostable).toBe(1);
  });

  it('should not boost while a post-handler is present, and boost once it is gone', () => {
    const { m, k } = boot();
    const seen = hitPaths(k);
    let posts = 0;
    const withPost: Kprobe = { symbolName: 'kprobe_target', preHandler: () => 0, postHandler: () => void posts++ };
    k.registerKprobe(withPost);
    k.registerKprobe({ symbolName: 'kprobe_target', preHandler: () => 0 });
    for (let i = 0; i < 3; i++) expect(callCounting(m, 'kprobe_target', 9n)).toEqual({ result: 3n, traps: [3, 1] });
    expect(posts).toBe(3);
    expect(seen.boosted).toEqual([]);
    k.unregisterKprobe(withPost);
    expect(callCounting(m, 'kprobe_target', 9n).traps).toEqual([3, 1]);
    expect(callCounting(m, 'kprobe_target', 9n).traps).toEqual([3]);
    // A post-handler joining a boosted site single-steps again, and its post-handler runs.
    k.registerKprobe({ symbolName: 'kprobe_target', postHandler: () => void posts++ });
    expect(callCounting(m, 'kprobe_target', 9n)).toEqual({ result: 3n, traps: [3, 1] });
    expect(posts).toBe(4);
    expect(seen.paths).toEqual(['int3', 'int3', 'int3', 'int3', 'boosted', 'int3']);
  });

  it('should boost a probe jump optimization refuses, with optimization on', () => {
    const { m, k } = bootWithKprobes();
    const seen = hitPaths(k);
    k.registerKprobe({ symbolName: 'optprobe_jcc_in_region', preHandler: () => 0 });
    k.optimization.runNow();
    expect(callCounting(m, 'optprobe_jcc_in_region', 4n)).toEqual({ result: 5n, traps: [3, 1] });
    expect(callCounting(m, 'optprobe_jcc_in_region', 4n)).toEqual({ result: 5n, traps: [3] });
    expect(seen.paths).toEqual(['int3', 'boosted']);
  });

  it('should never boost with k.config.boosting = false (CONFIG_PREEMPT)', () => {
    const { m, k } = boot();
    k.config.boosting = false;
    k.registerKprobe({ symbolName: 'kprobe_target', preHandler: () => 0 });
    for (let i = 0; i < 3; i++) expect(callCounting(m, 'kprobe_target', 9n).traps).toEqual([3, 1]);
    expect((k.get(addr(m, 'kprobe_target'))!.arch as X86Site).boost.boostable).toBe(0);
  });

  it.each([
    ['optprobe_jcc_in_region', 4, 'je', 0n, 0n],
    ['optprobe_call_in_region', 4, 'call rel32', 9n, 3n],
    ['optprobe_indirect_jump', 12, 'jmp *%rdx', 1n, 2n],
    ['optprobe_jump_into_region', 8, 'jl', 1n, 10n],
  ])('should never boost %s+%i (%s)', (sym, off, _what, arg, expected) => {
    const { m, k } = boot();
    const seen = hitPaths(k);
    k.registerKprobe({ addr: addr(m, sym, off), preHandler: () => 0 });
    for (let i = 0; i < 2; i++) {
      const r = callCounting(m, sym, arg);
      expect(r.result).toBe(expected);
      expect(r.traps.filter((v) => v === 1).length).toBe(r.traps.filter((v) => v === 3).length);
    }
    expect(seen.paths.every((p) => p === 'int3')).toBe(true);
    expect(seen.paths.length).toBeGreaterThanOrEqual(2);
    expect(seen.boosted).toEqual([]);
    expect((k.get(addr(m, sym, off))!.arch as X86Site).boost.boostable).toBe(-1);
  });

  it('should never boost call *%rax (the return address needs resume_execution)', () => {
    const plain = run(boot().m, ['dd', '3']);
    const { m, k } = boot();
    const seen = hitPaths(k);
    const callAt = findInsn(m, '__blockdev_direct_IO', 'ffd0');
    k.registerKprobe({ addr: callAt, preHandler: () => 0 });
    expect(run(m, ['dd', '3'])).toBe(plain);
    expect(seen.paths.length).toBeGreaterThanOrEqual(2);
    expect(seen.paths.every((p) => p === 'int3')).toBe(true);
    expect((k.get(callAt)!.arch as X86Site).boost.boostable).toBe(-1);
  });

  it('should boost ret without a jump', () => {
    const { m, k } = boot();
    const retAt = findInsn(m, 'kprobe_target', 'c3');
    k.registerKprobe({ addr: retAt, preHandler: () => 0 });
    expect(callCounting(m, 'kprobe_target', 9n)).toEqual({ result: 3n, traps: [3, 1] });
    expect(callCounting(m, 'kprobe_target', 12n)).toEqual({ result: 4n, traps: [3] });
  });

  it('should boost on a workload and keep its output', () => {
    const { m, k } = boot();
    const seen = hitPaths(k);
    k.registerKprobe({ symbolName: 'vfs_read', preHandler: () => 0 });
    expect(run(m, ['cat', '/etc/motd'])).toMatch(/int3/);
    expect(seen.paths[0]).toBe('int3');
    expect(seen.paths.slice(1).every((p) => p === 'boosted')).toBe(true);
    expect(seen.paths.length).toBeGreaterThan(1);
  });

  it('should restore the boost state exactly with a machine snapshot', () => {
    const { m, k } = boot();
    k.registerKprobe({ symbolName: 'kprobe_target', preHandler: () => 0 });
    const x = k.get(addr(m, 'kprobe_target'))!.arch as X86Site;
    const before = m.snapshot();
    callCounting(m, 'kprobe_target', 9n);
    expect(x.boost.boostable).toBe(1);
    m.restore(before);
    expect(x.boost.boostable).toBe(0);
    expect(m.space.read(x.slot + BigInt(x.length), 5)[0]).not.toBe(0xe9);
    expect(callCounting(m, 'kprobe_target', 9n).traps).toEqual([3, 1]);
    expect(callCounting(m, 'kprobe_target', 9n).traps).toEqual([3]);
  });
});

// Each function returns the flags a pushf sees after an IF-changing instruction (boostable in 4.x).
const IF_FUNCTIONS: Record<string, string> = {
  after_cli: 'sti; cli; pushf; pop %rax; ret',
  after_sti: 'cli; sti; pushf; pop %rax; cli; ret',
  after_popf: 'sti; push $0x2; popf; pushf; pop %rax; ret',
  pushed_by_pushf: 'sti; pushf; pop %rax; cli; ret',
};
const IF_MODULE = [
  '  .text',
  ...Object.entries(IF_FUNCTIONS).flatMap(([fn, body]) => [
    `  .globl ${fn}`,
    `  .type ${fn}, @function`,
    `${fn}: ${body}`,
    `  .size ${fn}, . - ${fn}`,
  ]),
].join('\n');

describe('boosted IF modifiers and pushf', () => {
  it.each([
    ['after_cli', 'cli'],
    ['after_sti', 'sti'],
    ['after_popf', 'popf'],
    ['pushed_by_pushf', 'pushf'],
  ])('should give %s the same flags with its %s probed, stepped then boosted', (fn, mnemonic) => {
    const plain = boot();
    plain.m.modules.load(assemble(IF_MODULE), 'ifmod.ko');
    const expected = plain.m.kernel.guest.call(0, addr(plain.m, fn), []) & 0x300n;
    const { m, k } = boot();
    m.modules.load(assemble(IF_MODULE), 'ifmod.ko');
    const seen = hitPaths(k);
    const at = boundaries(m, fn).find((i) => i.text.startsWith(mnemonic))!.address;
    k.registerKprobe({ addr: at, preHandler: () => 0 });
    expect(m.kernel.guest.call(0, addr(m, fn), []) & 0x300n).toBe(expected);
    expect(m.kernel.guest.call(0, addr(m, fn), []) & 0x300n).toBe(expected);
    expect(seen.paths).toEqual(['int3', 'boosted']);
  });
});

describe('dirty slots (GarbageSlots)', () => {
  it('should not free a boosted slot while a CPU is stopped inside it', () => {
    const { m, k } = boot(1, 3);
    const kp: Kprobe = { symbolName: 'vfs_read', preHandler: () => 0 };
    k.registerKprobe(kp);
    const x = k.get(addr(m, 'vfs_read'))!.arch as X86Site;
    const inSlot = () => m.cpus.some((c) => c.rip >= x.slot && c.rip < x.slot + 16n);
    const start = m.console.length;
    const t = m.spawn(['cat', '/etc/motd']);
    expect(m.run({ until: () => t.exited, stopAfter: () => x.boost.boostable === 1 && inSlot() })).toEqual({
      reason: 'stopped',
    });
    const used = x86(k).kprobes.slots.used;
    k.unregisterKprobe(kp);
    expect(x86(k).kprobes.slots.used).toBe(used);
    expect(x86(k).kprobes.booster.garbage.nrGarbage).toBe(1);
    // A new probe does not get the dirty slot.
    const other: Kprobe = { symbolName: 'kprobe_target', preHandler: () => 0 };
    k.registerKprobe(other);
    expect(k.get(addr(m, 'kprobe_target'))!.arch.slot).not.toBe(x.slot);
    expect(m.run({ until: () => t.exited })).toEqual({ reason: 'done' });
    expect(
      m.console
        .slice(start)
        .map((c) => c.text)
        .join(''),
    ).toMatch(/int3/);
    expect(x86(k).kprobes.booster.garbage.collectGarbageSlots()).toBe(1);
    expect(x86(k).kprobes.booster.garbage.nrGarbage).toBe(0);
  });
});
