import type { TrapEvent } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import type { Kretprobe } from '../src/core/kretprobe.js';
import { KprobeError } from '../src/kprobe-error.js';
import { addr, bootWithKprobes, run } from './support/machine.js';

describe('kretprobes', () => {
  it('should take exactly four interruptions per call: int3 at entry, its step, int3 at the trampoline, its step', () => {
    const { m, k } = bootWithKprobes();
    const rets: bigint[] = [];
    const rp: Kretprobe = { kp: { symbolName: 'sys_mkdir' }, handler: (_ri, regs) => rets.push(regs.ax) };
    k.registerKretprobe(rp);
    const traps: TrapEvent[] = [];
    m.traps$.subscribe((t) => traps.push(t));
    expect(run(m, ['mkdir', '/tmp/d'])).toBe('mkdir: created /tmp/d\n');
    const probeTraps = traps
      .filter((t) => t.vector === 3 || t.vector === 1)
      .map((t) => [t.vector, m.kallsyms.format(t.rip).replace(/\/.*/, '')]);
    expect(probeTraps).toEqual([
      [3, 'sys_mkdir+0x1'],
      [1, expect.stringMatching(/^kprobe_insn_page\+0x[0-9a-f]+$/)],
      [3, 'kretprobe_trampoline+0x1'],
      [1, expect.stringMatching(/^sys_mkdir\+0x|^do_syscall_64\+0x/)],
    ]);
    expect(rets).toEqual([0n]);
    expect(rp.maxactive).toBe(10);
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
    const entry = m.memory.moduleAlloc(4096, 3);
    const rel = Number(addr(m, 'jprobe_return') - (entry + 5n));
    const bytes = new Uint8Array([0xe8, rel & 0xff, (rel >> 8) & 0xff, (rel >> 16) & 0xff, (rel >>> 24) & 0xff]);
    m.space.write(entry, bytes);
    m.space.protect(entry, 4096, 1);
    // Linux requires entries in kernel or module text; host-mapped code here is neither.
    expect(() => k.registerJprobe({ kp: { symbolName: 'do_sys_open' }, entry })).toThrow(/not kernel or module text/);
  });
});
