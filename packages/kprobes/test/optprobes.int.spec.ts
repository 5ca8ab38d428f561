import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PageFlags } from '@int3/cpu';
import { IMAGE_DIR, type Machine, TICK_NS } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { OPTINSN_SLOT_SIZE } from '../src/arch/x86/opt-detour.js';
import { type Kprobe, KprobeFlag } from '../src/core/kprobe.js';
import type { KprobeEvent } from '../src/core/kprobe-event.js';
import { type Kprobes, kprobesCore } from '../src/kprobes.js';
import { addr, bootWithKprobes, boundaries, run, x86 } from './support/machine.js';

const hex = (m: Machine, a: bigint, n = 24) => Buffer.from(m.space.read(a, n)).toString('hex');

/** Counts int3 and #DB traps from now on. */
function countTraps(m: Machine): { int3: number; db: number } {
  const n = { int3: 0, db: 0 };
  m.streams.traps$.subscribe((t) => {
    if (t.vector === 3) n.int3++;
    if (t.vector === 1) n.db++;
  });
  return n;
}

function events(k: Kprobes): KprobeEvent[] {
  const out: KprobeEvent[] = [];
  k.events$.subscribe((e) => out.push(e));
  return out;
}

describe('jump-optimized kprobes', () => {
  it('should queue a probe and optimize it OPTIMIZE_DELAY jiffies later, at a round boundary', () => {
    const { m, k } = bootWithKprobes(2, 100_000);
    const kp: Kprobe = { symbolName: 'vfs_read', preHandler: () => 0 };
    const t0 = m.clock(0);
    k.registerKprobe(kp);
    const site = k.get(kp.addr!)!;
    expect(kprobesCore(k).optimizer.phase(site)).toBe('queued');
    expect(site.optimized).toBe(false);
    expect(k.optimization.refusal(kp)).toBeUndefined();
    let rounds = 0;
    while (!site.optimized && rounds++ < 200) m.runRound();
    expect(site.optimized).toBe(true);
    expect(m.clock(0) - t0).toBeGreaterThanOrEqual(5 * TICK_NS);
    expect(m.clock(0) - t0).toBeLessThan(7 * TICK_NS);
    expect(m.space.readU8(kp.addr!)).toBe(0xe9);
    expect(k.debugfs.list()).toContain(`vfs_read+0x0    [OPTIMIZED]\n`);
  });

  it('should write the jump as text_poke_bp does, with a round boundary (every CPU ran) between the writes', () => {
    const { m, k } = bootWithKprobes(2, 100_000);
    let round = 0;
    m.kernel.onRoundBoundary(() => round++);
    const pokes: [number, string, number, bigint, string][] = [];
    k.events$.subscribe((e) => {
      if (e.type === 'kprobe:text-poke-bp') pokes.push([round, e.op, e.step, e.where - e.addr, e.bytes]);
    });
    const a = addr(m, 'vfs_read');
    const tail = hex(m, a + 1n, 4);
    const kp: Kprobe = { symbolName: 'vfs_read', preHandler: () => 0 };
    k.registerKprobe(kp);
    const site = k.get(a)!;
    while (!site.optimized) m.runRound();
    m.runRound();
    k.disableKprobe(kp);
    while (site.armed) m.runRound();
    const rel = Buffer.alloc(4);
    rel.writeInt32LE(Number(k.optimization.detour(site.addr)!.buf - (a + 5n)));
    const r = pokes[0][0];
    const u = pokes[3][0];
    expect(pokes).toEqual([
      [r, 'optimize', 1, 0n, 'cc'],
      [r, 'optimize', 2, 1n, rel.toString('hex')],
      [r + 1, 'optimize', 3, 0n, 'e9'],
      [u, 'unoptimize', 1, 0n, 'cc'],
      [u + 1, 'unoptimize', 2, 1n, tail],
    ]);
    expect(u).toBeGreaterThan(r + 1);
  });

  it('should run the pre-handler with ip = addr + 1, ignore its return value, and take no trap', () => {
    const seen = (optimized: boolean) => {
      const { m, k } = bootWithKprobes(1);
      if (!optimized) k.optimization.enabled = false;
      const ips: bigint[] = [];
      const kp: Kprobe = {
        symbolName: 'vfs_read',
        preHandler: (_p, r) => {
          ips.push(r.ip);
          // "I changed the ip" (1) is ignored on an optimized probe; on an int3 hit it would skip the copy.
          return optimized ? 1 : 0;
        },
      };
      k.registerKprobe(kp);
      k.optimization.runNow();
      expect(k.get(kp.addr!)!.optimized).toBe(optimized);
      const traps = countTraps(m);
      const out = run(m, ['cat', '/etc/motd'], ['dd', '2']);
      return { ips, out, traps, site: kp.addr! };
    };
    const o = seen(true);
    const plain = seen(false);
    expect(o.ips.length).toBeGreaterThan(2);
    expect(o.traps).toEqual({ int3: 0, db: 0 });
    expect(plain.traps.int3).toBe(plain.ips.length);
    expect(o.ips).toEqual(plain.ips);
    expect(new Set(o.ips)).toEqual(new Set([o.site + 1n]));
    expect(o.out).toBe(plain.out);
  });

  it('should show the handlers the registers an int3 hit shows', () => {
    const view = (optimized: boolean) => {
      const { m, k } = bootWithKprobes(1);
      if (!optimized) k.optimization.enabled = false;
      const regs: string[] = [];
      k.registerKprobe({
        symbolName: 'sys_mkdir',
        preHandler: (_p, r) => {
          regs.push([r.ip, r.get('di'), r.get('si'), r.sp, r.flags & 0x8d5, r.get('ax'), r.get('r15')].join(' '));
          return 0;
        },
      });
      k.optimization.runNow();
      const out = run(m, ['mkdir', '/tmp/opt']);
      return { regs, out };
    };
    const o = view(true);
    const i = view(false);
    expect(o.regs).toEqual(i.regs);
    expect(o.out).toBe(i.out);
  });

  it('should let a handler change a register the probed code then uses, as on the int3 path', () => {
    const output = (optimized: boolean) => {
      const { m, k } = bootWithKprobes(1);
      if (!optimized) k.optimization.enabled = false;
      // vfs_write(file, buf, count, pos): cut every write to 5 bytes.
      k.registerKprobe({
        symbolName: 'vfs_write',
        preHandler: (_p, r) => {
          r.set('dx', 5n);
          return 0;
        },
      });
      k.optimization.runNow();
      expect(k.get(addr(m, 'vfs_write'))!.optimized).toBe(optimized);
      return run(m, ['cat', '/etc/motd']);
    };
    const o = output(true);
    expect(o).toBe(output(false));
    expect(o.length).toBeLessThan(20);
  });

  it('should send an int3 hit of a queued probe through the detour, without a single-step', () => {
    const { m, k } = bootWithKprobes(1);
    const ev = events(k);
    const kp: Kprobe = { symbolName: 'vfs_read', preHandler: () => 0 };
    k.registerKprobe(kp);
    const traps = countTraps(m);
    const out = run(m, ['cat', '/etc/motd']);
    expect(out).toContain('Welcome');
    const site = k.get(kp.addr!)!;
    expect(site.optimized).toBe(false);
    const hits = ev.filter((e) => e.type === 'kprobe:hit');
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((e) => e.type === 'kprobe:hit' && e.path === 'detour')).toBe(true);
    expect(traps.int3).toBe(hits.length);
    expect(traps.db).toBe(0);
  });

  describe('unoptimizing', () => {
    function optimized(sym = 'vfs_read') {
      const { m, k } = bootWithKprobes(1);
      const a = addr(m, sym);
      const before = hex(m, a);
      const bounds = boundaries(m, sym);
      const kp: Kprobe = { symbolName: sym, preHandler: () => 0 };
      k.registerKprobe(kp);
      k.optimization.runNow();
      const site = k.get(a)!;
      expect(site.optimized).toBe(true);
      const int3 = `cc${before.slice(2)}`;
      return { m, k, a, kp, site, before, int3, bounds };
    }

    it('should restore the original bytes on disable (then disarm), and optimize again on enable', () => {
      const { m, k, a, kp, site, before } = optimized();
      k.disableKprobe(kp);
      expect(site.armed).toBe(true);
      k.optimization.runNow();
      expect(hex(m, a)).toBe(before);
      expect(site.armed).toBe(false);
      expect(k.optimization.refusal(kp)).toBe('disabled');
      k.enableKprobe(kp);
      k.optimization.runNow();
      expect(site.optimized).toBe(true);
    });

    it('should cancel a pending unoptimization when the probe is enabled again before the optimizer ran', () => {
      const { m, k, a, kp, site } = optimized();
      const jump = hex(m, a);
      const ev = events(k);
      k.disableKprobe(kp);
      expect(kprobesCore(k).optimizer.phase(site)).toBe('unqueued');
      k.enableKprobe(kp);
      expect(kprobesCore(k).optimizer.phase(site)).toBe('optimized');
      k.optimization.runNow();
      expect(hex(m, a)).toBe(jump);
      expect(ev.filter((e) => e.type === 'kprobe:text-poke-bp')).toEqual([]);
    });

    it('should restore the original bytes at once on unregister', () => {
      const { m, k, a, kp, site, before } = optimized();
      const slots = k.optimization.detour(site.addr)!.buf;
      k.unregisterKprobe(kp);
      expect(hex(m, a)).toBe(before);
      expect(k.get(a)).toBeUndefined();
      expect(kprobesCore(k).optimizer.detour(site)).toBeUndefined();
      // The buffer is free again: the next optimized probe gets it.
      const again: Kprobe = { symbolName: 'sys_mkdir', preHandler: () => 0 };
      k.registerKprobe(again);
      expect(k.optimization.detour(again.addr!)!.buf).toBe(slots);
    });

    it('should unoptimize at once when a post-handler joins the aggregate', () => {
      const { m, k, a, kp, site, int3 } = optimized();
      const post: Kprobe = { symbolName: 'vfs_read', postHandler: () => {} };
      k.registerKprobe(post);
      expect(hex(m, a)).toBe(int3);
      expect(site.optimized).toBe(false);
      expect(k.optimization.refusal(kp)).toBe('has a post_handler');
      k.unregisterKprobe(post);
      k.optimization.runNow();
      expect(site.optimized).toBe(true);
    });

    it('should follow debug.kprobes-optimization: 0 unoptimizes every probe, 1 optimizes them again', () => {
      const { m, k, a, kp, site, int3 } = optimized();
      k.optimization.enabled = false;
      expect(k.optimization.enabled).toBe(false);
      k.optimization.runNow();
      expect(hex(m, a)).toBe(int3);
      expect(k.optimization.refusal(kp)).toBe('optimization is off (debug.kprobes-optimization=0)');
      expect(k.debugfs.list()).not.toContain('[OPTIMIZED]');
      k.optimization.enabled = true;
      k.optimization.runNow();
      expect(site.optimized).toBe(true);
      const log = m.printk.dmesg();
      expect(log).toContain('Kprobes globally unoptimized');
      expect(log).toContain('Kprobes globally optimized');
    });

    it('should restore the original bytes at once when kprobes/enabled is set to 0', () => {
      const { m, k, a, site, before } = optimized();
      k.debugfs.writeEnabled('0');
      expect(hex(m, a)).toBe(before);
      expect(site.optimized).toBe(false);
      k.debugfs.writeEnabled('1');
      k.optimization.runNow();
      expect(site.optimized).toBe(true);
    });

    it('should unoptimize a probe when another is armed inside its region, and re-optimize it after', () => {
      const { m, k, a, kp, site, before, bounds } = optimized();
      const second = bounds[1];
      expect(second.address - a).toBeLessThan(BigInt(k.optimization.detour(site.addr)!.size));
      const inner: Kprobe = { addr: second.address, preHandler: () => 0 };
      k.registerKprobe(inner);
      const off = Number(second.address - a) * 2;
      expect(hex(m, a)).toBe(`cc${before.slice(2, off)}cc${before.slice(off + 2)}`);
      expect(k.optimization.refusal(kp)).toBe(`probe inside the region at ${m.kallsyms.format(second.address)}`);
      k.unregisterKprobe(inner);
      k.optimization.runNow();
      expect(site.optimized).toBe(true);
    });

    it('should decode past an optimized jump: a probe registered inside the region lands on a real boundary', () => {
      const { k, site, bounds: inner } = optimized('do_sys_open');
      // The decoder must see the original code under the jump, so the third boundary is found.
      expect(() => k.registerKprobe({ addr: inner[2].address, preHandler: () => 0 })).not.toThrow();
      expect(site.optimized).toBe(false);
    });
  });

  it("should forget an optimized probe in a module's text when the module goes away, writing nothing", () => {
    const { m, k } = bootWithKprobes(1);
    m.modules.load(new Uint8Array(readFileSync(join(IMAGE_DIR, 'modules', 'hello.ko'))), 'hello.ko');
    const ev = events(k);
    const mod = m.kallsyms.all().filter((s) => s.module === 'hello' && s.type.toLowerCase() === 't');
    const optimized = mod.flatMap((s) => {
      const kp: Kprobe = { addr: s.address, preHandler: () => 0 };
      k.registerKprobe(kp);
      k.optimization.runNow();
      return k.get(s.address)!.optimized ? [kp] : [];
    });
    expect(optimized.length).toBeGreaterThan(0);
    const pokes = ev.length;
    m.modules.unload('hello');
    const kp = optimized[0];
    expect(k.get(kp.addr!)!.optimized).toBe(false);
    expect(k.debugfs.list()).toContain('hello [GONE]\n');
    expect(ev.slice(pokes).filter((e) => e.type === 'kprobe:text-poke-bp')).toEqual([]);
    k.unregisterKprobe(kp);
    expect(k.get(kp.addr!)).toBeUndefined();
  });

  it('should optimize a probe registered disabled once it is enabled', () => {
    const { k } = bootWithKprobes(1);
    const kp: Kprobe = { symbolName: 'sys_mkdir', preHandler: () => 0, flags: KprobeFlag.DISABLED };
    k.registerKprobe(kp);
    k.optimization.runNow();
    expect(k.optimization.refusal(kp)).toBe('disabled');
    k.enableKprobe(kp);
    expect(k.optimization.refusal(kp)).toBeUndefined();
    k.optimization.runNow();
    expect(k.get(kp.addr!)!.optimized).toBe(true);
  });

  it("should optimize a kretprobe's entry probe: with the booster's trampoline a call takes no trap, every return is seen", () => {
    const { m, k } = bootWithKprobes(1);
    const rets: bigint[] = [];
    k.registerKretprobe({ kp: { symbolName: 'sys_mkdir' }, handler: (_ri, regs) => void rets.push(regs.ax) });
    k.optimization.runNow();
    expect(k.get(addr(m, 'sys_mkdir'))!.optimized).toBe(true);
    expect(k.debugfs.list()).toMatch(/ {2}r {2}sys_mkdir\+0x0 {4}\[OPTIMIZED\]/);
    const traps: string[] = [];
    m.streams.traps$.subscribe((t) => t.vector === 3 && traps.push(m.kallsyms.format(t.rip).replace(/\/.*/, '')));
    expect(run(m, ['mkdir', '/tmp/r'])).toBe('mkdir: created /tmp/r\n');
    expect(rets).toEqual([0n]);
    expect(traps).toEqual([]);
    // The 2.6.12 trampoline traps on the way back.
    k.config.kretprobeBooster = false;
    expect(run(m, ['mkdir', '/tmp/r2'])).toBe('mkdir: created /tmp/r2\n');
    expect(rets).toEqual([0n, 0n]);
    expect(traps).toEqual(['kretprobe_trampoline+0x1']);
  });

  it("should optimize a module's kretprobe and restore the bytes when the module unregisters it", () => {
    const { m, k } = bootWithKprobes(1);
    const a = addr(m, 'sys_mkdir');
    const before = hex(m, a);
    m.modules.load(
      new Uint8Array(readFileSync(join(IMAGE_DIR, 'modules', 'kprobes', 'kretprobe_example.ko'))),
      'kretprobe_example.ko',
    );
    k.optimization.runNow();
    expect(k.get(a)!.optimized).toBe(true);
    expect(run(m, ['mkdir', '/tmp/m'], ['mkdir', '/tmp/m'])).toContain('error -17');
    const exited = m.printk
      .records()
      .map((r) => r.text)
      .filter((t) => t.includes('sys_mkdir exited'));
    expect(exited).toEqual(['sys_mkdir exited, returned 0', 'sys_mkdir exited, returned -17']);
    m.modules.unload('kretprobe_example');
    expect(hex(m, a)).toBe(before);
  });

  it('should leave a probe queued while a CPU is stopped inside its region, and optimize it once it left', () => {
    const { m, k } = bootWithKprobes(1);
    const [first, second] = boundaries(m, 'vfs_read');
    const task = m.spawn(['cat', '/etc/motd']);
    m.kernel.stepHook = () => {};
    expect(m.run({ stopAfter: () => m.cpus[0].rip === second.address || task.exited })).toEqual({ reason: 'stopped' });
    const kp: Kprobe = { addr: first.address, preHandler: () => 0 };
    k.registerKprobe(kp);
    k.optimization.runNow();
    const site = k.get(first.address)!;
    expect(kprobesCore(k).optimizer.phase(site)).toBe('queued');
    expect(site.optimized).toBe(false);
    m.kernel.stepHook = undefined;
    m.runRound();
    k.optimization.runNow();
    expect(site.optimized).toBe(true);
    m.run({ until: () => task.exited });
    expect(m.console.map((c) => c.text).join('')).toContain('Welcome');
  });

  it('should keep a released detour buffer until no CPU runs in it', () => {
    const { m, k } = bootWithKprobes(1);
    const kp: Kprobe = { symbolName: 'vfs_read', preHandler: () => 0 };
    k.registerKprobe(kp);
    k.optimization.runNow();
    const buf = k.optimization.detour(kp.addr!)!.buf;
    const task = m.spawn(['cat', '/etc/motd']);
    m.kernel.stepHook = () => {};
    const inBuf = () => m.cpus[0].rip >= buf && m.cpus[0].rip < buf + BigInt(OPTINSN_SLOT_SIZE);
    expect(m.run({ stopAfter: () => inBuf() || task.exited })).toEqual({ reason: 'stopped' });
    k.unregisterKprobe(kp);
    // Still in use: the next detour goes elsewhere.
    const other: Kprobe = { symbolName: 'sys_mkdir', preHandler: () => 0 };
    k.registerKprobe(other);
    expect(k.optimization.detour(other.addr!)!.buf).not.toBe(buf);
    m.kernel.stepHook = undefined;
    m.run({ until: () => !inBuf() });
    m.runRound();
    const third: Kprobe = { symbolName: 'kmalloc', preHandler: () => 0 };
    k.registerKprobe(third);
    expect(k.optimization.detour(third.addr!)!.buf).toBe(buf);
    m.run({ until: () => task.exited });
    expect(m.console.map((c) => c.text).join('')).toContain('Welcome');
  });

  it('should ignore a pre-handler changing ip or sp on an optimized probe, as Linux documents', () => {
    const { m, k } = bootWithKprobes(1);
    const t1 = addr(m, 'kprobe_target');
    const expected = m.kernel.guest.call(0, t1, [1234n]);
    let hits = 0;
    k.registerKprobe({
      symbolName: 'kprobe_target',
      preHandler: (_p, r) => {
        hits++;
        r.ip = 0n;
        r.sp = 8n;
        return 1;
      },
    });
    k.optimization.runNow();
    expect(k.get(t1)!.optimized).toBe(true);
    expect(m.kernel.guest.call(0, t1, [1234n])).toBe(expected);
    expect(hits).toBe(1);
  });

  it('should count a miss and run no handler when an optimized probe is hit while a kprobe runs on the CPU', () => {
    const { m, k } = bootWithKprobes(1);
    const t1 = addr(m, 'kprobe_target');
    const t2 = addr(m, 'kprobe_target2');
    const expected = m.kernel.guest.call(0, t2, [1000n]);
    let innerRuns = 0;
    let nested: bigint | undefined;
    const inner: Kprobe = { symbolName: 'kprobe_target2', preHandler: () => ++innerRuns && 0 };
    const outer: Kprobe = {
      symbolName: 'kprobe_target',
      preHandler: (_p, regs) => {
        nested = m.kernel.guest.call(regs.cpu.id, t2, [1000n]);
        return 0;
      },
    };
    k.registerKprobe(inner);
    k.registerKprobe(outer);
    k.optimization.runNow();
    expect([k.get(t1)!.optimized, k.get(t2)!.optimized]).toEqual([true, true]);
    const r = m.kernel.guest.call(0, t1, [1234n]);
    expect(nested).toBe(expected);
    expect(innerRuns).toBe(0);
    expect(inner.nmissed).toBe(1);
    expect(outer.nmissed).toBe(0);
    expect(m.kernel.guest.call(0, t2, [1000n])).toBe(expected);
    expect(innerRuns).toBe(1);
    k.unregisterKprobe(inner);
    k.unregisterKprobe(outer);
    expect(m.kernel.guest.call(0, t1, [1234n])).toBe(r);
  });

  it("should keep a released site's buffer and its gate until no CPU is stopped in it, then continue through the copy", () => {
    const { m, k } = bootWithKprobes(1);
    const kp: Kprobe = { symbolName: 'vfs_read', preHandler: () => 0 };
    k.registerKprobe(kp);
    k.optimization.runNow();
    const { buf } = k.optimization.detour(kp.addr!)!;
    const task = m.spawn(['cat', '/etc/motd']);
    m.kernel.stepHook = () => {};
    // Stopped right after the jump, before the gate ran.
    expect(m.run({ stopAfter: () => m.cpus[0].rip === buf || task.exited })).toEqual({ reason: 'stopped' });
    k.unregisterKprobe(kp);
    const other: Kprobe = { symbolName: 'sys_mkdir', preHandler: () => 0 };
    k.registerKprobe(other);
    expect(k.optimization.detour(other.addr!)!.buf).not.toBe(buf);
    expect(m.space.isGate(buf)).toBe(true);
    m.kernel.stepHook = undefined;
    m.run({ until: () => task.exited });
    expect(m.console.map((c) => c.text).join('')).toContain('Welcome');
    expect(m.printk.dmesg()).not.toContain('unbound host gate');
    expect(kp.nmissed).toBe(0);
  });

  it('should jump to a detour buffer holding the gate of the optimized callback, the copied region and the jump back', () => {
    const { m, k } = bootWithKprobes(1);
    const kp: Kprobe = { symbolName: 'vfs_read', preHandler: () => 0 };
    k.registerKprobe(kp);
    k.optimization.runNow();
    const a = kp.addr!;
    const d = k.optimization.detour(a)!;
    expect(m.kallsyms.format(d.buf)).toMatch(/^kprobe_optinsn_page\+0x[0-9a-f]+\/0x1000$/);
    // Only the buffer's first byte is a gate, on an ordinary executable page.
    expect(m.space.flagsAt(d.buf) & PageFlags.Gate).toBe(0);
    expect(m.space.isGate(d.buf)).toBe(true);
    expect(d.copies).toBe(d.buf + 1n);
    expect(m.space.isGate(d.copies)).toBe(false);
    expect(m.kernel.hostCalls.lookup(d.buf)?.name).toBe('optimized_callback');
    expect(m.space.readU8(a)).toBe(0xe9);
    expect(a + 5n + BigInt(m.space.readU32(a + 1n) | 0)).toBe(d.buf);
    const original = [k.get(a)!.arch.opcode];
    for (let i = 1n; i < 5n; i++) original.push(x86(k).opt.recoverOptprobedByte(a + i)!);
    original.push(...m.space.read(a + 5n, d.size - 5));
    // The copy (the same bytes: vfs_read's first instructions use no rip-relative operand), e9 back.
    expect([...m.space.read(d.copies, d.size)]).toEqual(original);
    const back = d.copies + BigInt(d.size);
    expect(m.space.readU8(back)).toBe(0xe9);
    expect(back + 5n + BigInt(m.space.readU32(back + 1n) | 0)).toBe(a + BigInt(d.size));
  });

  it('should free a released buffer as an ordinary byte again, and reuse the slot for another probe', () => {
    const { m, k } = bootWithKprobes(1);
    const kp: Kprobe = { symbolName: 'vfs_read', preHandler: () => 0 };
    k.registerKprobe(kp);
    k.optimization.runNow();
    const { buf } = k.optimization.detour(kp.addr!)!;
    k.unregisterKprobe(kp);
    expect(m.kernel.hostCalls.lookup(buf)).toBeUndefined();
    expect(m.space.isGate(buf)).toBe(false);
    const other: Kprobe = { symbolName: 'sys_mkdir', preHandler: () => 0 };
    k.registerKprobe(other);
    k.optimization.runNow();
    expect(k.optimization.detour(other.addr!)!.buf).toBe(buf);
    expect(m.space.isGate(buf)).toBe(true);
    let hits = 0;
    other.preHandler = () => {
      hits++;
      return 0;
    };
    const task = m.spawn(['mkdir', '/tmp/x']);
    m.run({ until: () => task.exited });
    expect(hits).toBe(1);
  });

  it('should refuse a probe with a post-handler and a probe in a function with an indirect jump, saying why', () => {
    const { m, k } = bootWithKprobes(1);
    const ev = events(k);
    const post: Kprobe = { symbolName: 'vfs_read', preHandler: () => 0, postHandler: () => {} };
    k.registerKprobe(post);
    expect(k.optimization.refusal(post)).toBe('has a post_handler');
    const table = m.kallsyms.lookupName('int3_jmp_table');
    if (table) {
      const kp: Kprobe = { symbolName: 'int3_jmp_table', preHandler: () => 0 };
      k.registerKprobe(kp);
      expect(k.optimization.refusal(kp)).toMatch(/indirect jump in function/);
      expect(ev.find((e) => e.type === 'kprobe:optimize-refused')).toMatchObject({ symbol: 'int3_jmp_table+0x0' });
    }
    // A temporary condition is not an optimize-refused event.
    expect(ev.filter((e) => e.type === 'kprobe:optimize-refused' && e.symbol === 'vfs_read+0x0')).toEqual([]);
  });
});
