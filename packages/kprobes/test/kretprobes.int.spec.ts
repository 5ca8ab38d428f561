import type { TrapEvent } from '@int3/cpu';
import type { Machine } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import type { Kretprobe } from '../src/core/kretprobe.js';
import { KprobeError } from '../src/kprobe-error.js';
import { kprobesCore } from '../src/kprobes.js';
import { addr, bootWithKprobes, run } from './support/machine.js';

/** The #BP and #DB traps among `traps`, as [vector, symbol+offset]. */
function probeTraps(m: Machine, traps: readonly TrapEvent[]) {
  return traps
    .filter((t) => t.vector === 3 || t.vector === 1)
    .map((t) => [t.vector, m.kallsyms.format(t.rip).replace(/\/.*/, '')]);
}

describe('kretprobes', () => {
  it('should take two interruptions per call with the booster: int3 at entry and its step, none on the way back', () => {
    const { m, k } = bootWithKprobes();
    const rets: bigint[] = [];
    const seen: string[] = [];
    const rp: Kretprobe = {
      kp: { symbolName: 'sys_mkdir' },
      handler: (ri, regs) => {
        rets.push(regs.ax);
        // As trampoline_handler runs it: current_kprobe is the kretprobe's own, ip is the trampoline.
        seen.push(
          `${kprobesCore(k).kcb[regs.cpu.id].current?.symbol} ${m.kallsyms.format(regs.ip)} ${m.kallsyms.format(ri.retAddr)}`,
        );
      },
    };
    k.optimization.enabled = false;
    k.config.boosting = false;
    k.registerKretprobe(rp);
    expect(k.config.kretprobeBooster).toBe(true);
    const traps: TrapEvent[] = [];
    m.streams.traps$.subscribe((t) => traps.push(t));
    const events: string[] = [];
    k.events$.subscribe((e) => events.push(e.type));
    expect(run(m, ['mkdir', '/tmp/d'])).toBe('mkdir: created /tmp/d\n');
    expect(probeTraps(m, traps)).toEqual([
      [3, 'sys_mkdir+0x1'],
      [1, expect.stringMatching(/^kprobe_insn_page\+0x[0-9a-f]+$/)],
    ]);
    expect(rets).toEqual([0n]);
    expect(seen).toEqual([expect.stringMatching(/^sys_mkdir\+0x0 kretprobe_trampoline\+0x0\/0x10 do_syscall_64\+0x/)]);
    expect(events.filter((e) => e === 'kretprobe:trampoline-hit')).toHaveLength(1);
    expect(kprobesCore(k).kcb.every((c) => c.current === undefined)).toBe(true);
  });

  it('should take exactly four interruptions per call without the booster: int3 at entry, its step, int3 at the trampoline, its step', () => {
    const { m, k } = bootWithKprobes();
    const rets: bigint[] = [];
    const rp: Kretprobe = { kp: { symbolName: 'sys_mkdir' }, handler: (_ri, regs) => rets.push(regs.ax) };
    // The int3 path: a jump-optimized entry probe would take no trap at all.
    k.optimization.enabled = false;
    k.config.kretprobeBooster = false;
    k.registerKretprobe(rp);
    const traps: TrapEvent[] = [];
    m.streams.traps$.subscribe((t) => traps.push(t));
    expect(run(m, ['mkdir', '/tmp/d'])).toBe('mkdir: created /tmp/d\n');
    expect(probeTraps(m, traps)).toEqual([
      [3, 'sys_mkdir+0x1'],
      [1, expect.stringMatching(/^kprobe_insn_page\+0x[0-9a-f]+$/)],
      [3, 'kretprobe_trampoline+0x1'],
      [1, expect.stringMatching(/^sys_mkdir\+0x|^do_syscall_64\+0x/)],
    ]);
    expect(rets).toEqual([0n]);
    expect(rp.maxactive).toBe(10);
  });

  it('should not run the handler for a return in flight from before an unregister and register again', () => {
    const { m, k } = bootWithKprobes();
    let generation = 1;
    const seen: number[] = [];
    const rp: Kretprobe = {
      kp: { symbolName: 'do_syscall_64' },
      dataSize: 1,
      entryHandler: (ri) => {
        ri.data[0] = generation;
        return 0;
      },
      handler: (ri) => void seen.push(ri.data[0]),
    };
    k.registerKretprobe(rp);
    const tasks = [
      ['fork', '3'],
      ['cat', '/etc/motd'],
    ].map((argv) => m.spawn(argv));
    const done = () => tasks.every((t) => t.exited);
    // Stop (mid-slice, at a gate) with a return in flight.
    m.run({ until: done, stopAfter: () => kprobesCore(k).kretprobes.activeInstances > 0 });
    expect(kprobesCore(k).kretprobes.activeInstances).toBeGreaterThan(0);
    k.unregisterKretprobe(rp);
    rp.kp.addr = undefined;
    seen.length = 0;
    generation = 2;
    k.registerKretprobe(rp);
    tasks.push(m.spawn(['cat', '/etc/motd']));
    expect(m.run({ until: done }).reason).toBe('done');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((g) => g !== 2)).toEqual([]);
    expect(kprobesCore(k).kretprobes.activeInstances).toBe(0);
  });

  it('should give back the instances of a task that exits inside the probed function (kprobe_flush_task)', () => {
    const { m, k } = bootWithKprobes();
    let returns = 0;
    const rp: Kretprobe = { kp: { symbolName: 'do_syscall_64' }, maxactive: 1, handler: () => void returns++ };
    k.registerKretprobe(rp);
    // Each task's last syscall, exit, never returns: its instance stays in flight until the task is dead.
    for (let i = 0; i < 4; i++) expect(run(m, ['hello'])).toMatch(/hello/i);
    expect(returns).toBeGreaterThan(4);
    expect(rp.nmissed).toBe(0);
    expect(kprobesCore(k).kretprobes.activeInstances).toBe(0);
  });

  it('should let a handler change the return value: sys_mkdir fails with -ENOMEM', () => {
    const { m, k } = bootWithKprobes();
    k.registerKretprobe({
      kp: { symbolName: 'sys_mkdir' },
      handler: (_ri, regs) => {
        regs.ax = -12n;
      },
    });
    const t = m.spawn(['mkdir', '/tmp/nomem']);
    m.run({ until: () => t.exited });
    expect(t.exitCode).not.toBe(0);
    expect(m.console.map((c) => c.text).join('')).toMatch(/error -12/);
  });

  it('should run entry and return handlers with per-instance data', () => {
    const { m, k } = bootWithKprobes();
    const seen: [number, bigint][] = [];
    k.registerKretprobe({
      kp: { symbolName: 'vfs_read' },
      dataSize: 8,
      entryHandler: (ri, regs) => {
        new DataView(ri.data.buffer).setBigUint64(0, regs.get('dx'), true);
        return 0;
      },
      handler: (ri, regs) => seen.push([Number(new DataView(ri.data.buffer).getBigUint64(0, true)), regs.ax]),
    });
    run(m, ['cat', '/etc/hostname']);
    // cat reads 512-byte chunks: the first read returns the 5 bytes of the file, the next 0 (EOF).
    expect(seen.map(([count, ret]) => [count, Number(ret)])).toEqual([
      [expect.any(Number), 5],
      [expect.any(Number), 0],
    ]);
  });

  it('should count entries it could not track in nmissed when maxactive instances are in flight', () => {
    const { m, k } = bootWithKprobes(2);
    // The parent blocks in wait4 inside do_syscall_64 while its children make their own system calls.
    const rp: Kretprobe = { kp: { symbolName: 'do_syscall_64' }, maxactive: 1, handler: () => {} };
    k.registerKretprobe(rp);
    expect(run(m, ['fork', '3'])).toMatch(/reaped 3 children/);
    expect(rp.nmissed).toBeGreaterThan(0);
  });

  it('should refuse a return probe that is not on a function entry, or with too much data', () => {
    const { k } = bootWithKprobes();
    const code = (rp: Kretprobe) => {
      try {
        k.registerKretprobe(rp);
        return 'ok';
      } catch (e) {
        return (e as KprobeError).code;
      }
    };
    expect(code({ kp: { symbolName: 'vfs_read', offset: 1 } })).toBe('EINVAL');
    expect(code({ kp: { symbolName: 'vfs_read' }, dataSize: 5000 })).toBe('E2BIG');
    expect(code({ kp: { symbolName: 'nope' } })).toBe('ENOENT');
  });
});

describe('jprobes', () => {
  it('should hand a host entry the probed function`s arguments per the SysV ABI', () => {
    const { m, k } = bootWithKprobes();
    const opened: string[] = [];
    k.registerJprobe({
      kp: { symbolName: 'do_sys_open' },
      entry: ([dfd, filename, flags], regs) => {
        opened.push(`${BigInt.asIntN(32, dfd)} ${regs.cpu.addressSpace.readCString(filename, 64)} ${flags}`);
      },
    });
    expect(run(m, ['cat', '/etc/motd'])).toMatch(/^Welcome/);
    expect(opened).toEqual(['-100 /etc/motd 0']);
  });

  it('should refuse a second jprobe at the same address with EEXIST', () => {
    const { k } = bootWithKprobes();
    k.registerJprobe({ kp: { symbolName: 'do_sys_open' }, entry: () => {} });
    expect(() => k.registerJprobe({ kp: { symbolName: 'do_sys_open' }, entry: () => {} })).toThrow(KprobeError);
  });

  it('should run a guest entry on the probed function`s frame and resume the function', () => {
    const { m, k } = bootWithKprobes();
    // A guest entry that only returns through jprobe_return: `call jprobe_return` at an executable spot.
    const entry = m.kernel.memory.moduleAlloc(4096, 3);
    const rel = Number(addr(m, 'jprobe_return') - (entry + 5n));
    const bytes = new Uint8Array([0xe8, rel & 0xff, (rel >> 8) & 0xff, (rel >> 16) & 0xff, (rel >>> 24) & 0xff]);
    m.space.write(entry, bytes);
    m.space.protect(entry, 4096, 1);
    // Linux requires entries in kernel or module text; host-mapped code here is neither.
    expect(() => k.registerJprobe({ kp: { symbolName: 'do_sys_open' }, entry })).toThrow(/not kernel or module text/);
  });
});
