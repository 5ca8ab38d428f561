import type { Machine } from '@int3/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import type { Kprobes } from '../src/kprobes.js';
import { addr, bootWithKprobes } from './support/machine.js';

/** What `kprobe_target_loop(n)` returns: the sum of kprobe_target(i) = i / 3 for i < n, as a u32. */
function expectedLoop(n: number): bigint {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s + Math.floor(i / 3)) >>> 0;
  return BigInt(s);
}

/** Runs the loop `n` times; its result, the #BP traps published, and the int3s the compiled-code chain took. */
function loop(m: Machine, n: number): { result: bigint; bp: number; chained: number } {
  let bp = 0;
  const sub = m.streams.traps$.subscribe((t) => {
    if (t.vector === 3) bp++;
  });
  const jit = m.cpus[0].jit;
  const before = jit?.stats.traps ?? 0;
  const result = m.kernel.guest.call(0, addr(m, 'kprobe_target_loop'), [BigInt(n)]);
  sub.unsubscribe();
  return { result, bp, chained: (jit?.stats.traps ?? 0) - before };
}

type Variant = 'k' | 'b' | 'r' | 'rb';

function register(k: Kprobes, v: Variant, count: () => void): () => void {
  k.config.boosting = v === 'b' || v === 'rb';
  if (v === 'k' || v === 'b') {
    const kp = {
      symbolName: 'kprobe_target',
      preHandler: () => {
        count();
        return 0;
      },
    };
    k.registerKprobe(kp);
    return () => k.unregisterKprobe(kp);
  }
  const rp = { kp: { symbolName: 'kprobe_target' }, handler: () => count() };
  k.registerKretprobe(rp);
  return () => k.unregisterKretprobe(rp);
}

describe('probe hits in hot, compiled code', () => {
  for (const v of ['k', 'b', 'r', 'rb'] as const) {
    it(`should be taken where the compiled code reaches the int3, the loop computing what it computes unprobed (${v})`, () => {
      const { m, k } = bootWithKprobes();
      k.optimization.enabled = false;
      const compiler = m.cpus[0].jit !== null;
      const N = 3000;
      expect(loop(m, N).result).toBe(expectedLoop(N));
      let hits = 0;
      const unregister = register(k, v, () => hits++);
      const probed = loop(m, N);
      expect(probed.result).toBe(expectedLoop(N));
      expect(hits).toBe(N);
      // Each hit's #BP published once, however it was taken; with the compiler on, the hits after the
      // int3's warm-up were offered to the host from the chain of compiled regions.
      expect(probed.bp).toBe(N);
      if (compiler) expect(probed.chained).toBeGreaterThan(N - 200);
      else expect(probed.chained).toBe(0);
      // Disarmed: the int3's region goes with the byte; the function runs compiled again, unprobed.
      unregister();
      expect(loop(m, N)).toEqual({ result: expectedLoop(N), bp: 0, chained: 0 });
      expect(hits).toBe(N);
      // Armed again: hit again.
      register(k, v, () => hits++);
      expect(loop(m, N)).toMatchObject({ result: expectedLoop(N), bp: N });
      expect(hits).toBe(2 * N);
    });
  }
});

describe('probe hits with the block compiler on and off', () => {
  const saved = process.env.INT3_JIT;
  afterEach(() => {
    if (saved === undefined) delete process.env.INT3_JIT;
    else process.env.INT3_JIT = saved;
  });

  /**
   * Boosted, single-stepped (a post-handler), optimized and kretprobe hits on hot code, armed,
   * disarmed and re-armed between runs, then a workload under stopAfter: every kprobes event and trap (with its clock
   * and retired count), the results, and each CPU's retired count and context at the end.
   */
  function record(jit: '0' | '1') {
    process.env.INT3_JIT = jit;
    const { m, k } = bootWithKprobes(2);
    const log: string[] = [];
    k.events$.subscribe((e) => log.push(JSON.stringify(e, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))));
    m.streams.traps$.subscribe((t) => log.push(`trap ${t.cpu} ${t.vector} ${t.rip} ${t.retired}`));
    const results: bigint[] = [];
    const call = (n: number) => results.push(m.kernel.guest.call(0, addr(m, 'kprobe_target_loop'), [BigInt(n)]));
    const boosted = { symbolName: 'kprobe_target', preHandler: () => 0 };
    k.registerKprobe(boosted);
    call(500);
    const post = { symbolName: 'kprobe_target', postHandler: () => {} };
    k.registerKprobe(post);
    call(500);
    k.unregisterKprobe(post);
    k.unregisterKprobe(boosted);
    call(500);
    const rp = { kp: { symbolName: 'kprobe_target' }, handler: () => {} };
    k.registerKretprobe(rp);
    call(500);
    k.optimization.runNow();
    call(500);
    // A workload under a stopAfter that stops the run every 7th check (each stop resumed).
    const tasks = [m.spawn(['spin', '20000']), m.spawn(['hello'])];
    let checks = 0;
    for (let stops = 0; stops < 10_000 && !tasks.every((t) => t.exited); stops++) {
      m.run({ until: () => tasks.every((t) => t.exited), stopAfter: () => ++checks % 7 === 0 });
    }
    log.push(`checks ${checks} console ${m.console.map((c) => c.text).join('')}`);
    return { log, results, cpus: m.cpus.map((c) => ({ retired: c.retired, context: c.saveContext() })) };
  }

  it('should give the same events, results and CPU state with INT3_JIT=1 and INT3_JIT=0', () => {
    const on = record('1');
    const off = record('0');
    expect(on.log.length).toBeGreaterThan(2500);
    expect(on).toEqual(off);
  });
});
