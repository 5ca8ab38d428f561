import { describe, expect, it } from 'vitest';
import type { Kprobe } from '../src/core/kprobe.js';
import { KprobeFlag } from '../src/core/kprobe.js';
import type { KprobeEvent } from '../src/core/kprobe-event.js';
import { KprobeError } from '../src/kprobe-error.js';
import { addr, bootWithKprobes, findInsn, run } from './support/machine.js';

const errno = (f: () => void) => {
  try {
    f();
  } catch (e) {
    if (e instanceof KprobeError) return e.code;
    throw e;
  }
  return 'ok';
};

describe('registerKprobe', () => {
  it('should run the pre- and post-handler on every hit and leave the workload unchanged', () => {
    const { m, k } = bootWithKprobes();
    const plain = run(bootWithKprobes().m, ['cat', '/etc/motd']);
    const seen: bigint[] = [];
    let posts = 0;
    const kp: Kprobe = {
      symbolName: 'vfs_read',
      preHandler: (_p, regs) => {
        seen.push(regs.ip);
        return 0;
      },
      postHandler: () => {
        posts++;
      },
    };
    k.registerKprobe(kp);
    expect(kp.addr).toBe(addr(m, 'vfs_read'));
    expect(run(m, ['cat', '/etc/motd'])).toBe(plain);
    expect(seen.length).toBeGreaterThan(1);
    // In a handler, ip is the probe address + 1, as after the int3.
    expect(new Set(seen)).toEqual(new Set([kp.addr! + 1n]));
    expect(posts).toBe(seen.length);
    expect(kp.nmissed).toBe(0);
  });

  it('should refuse bad registrations with the kernel errnos', () => {
    const { m, k } = bootWithKprobes();
    expect(errno(() => k.registerKprobe({}))).toBe('EINVAL');
    expect(errno(() => k.registerKprobe({ symbolName: 'vfs_read', addr: addr(m, 'vfs_read') }))).toBe('EINVAL');
    expect(errno(() => k.registerKprobe({ symbolName: 'no_such_function' }))).toBe('ENOENT');
    expect(errno(() => k.registerKprobe({ symbolName: 'vfs_read', offset: 2 }))).toBe('EILSEQ');
    expect(errno(() => k.registerKprobe({ symbolName: 'linux_banner' }))).toBe('EINVAL');
    expect(errno(() => k.registerKprobe({ symbolName: 'entry_SYSCALL_64' }))).toBe('EINVAL');
    expect(errno(() => k.registerKprobe({ symbolName: 'kretprobe_trampoline' }))).toBe('EINVAL');
    const kp: Kprobe = { symbolName: 'vfs_write' };
    k.registerKprobe(kp);
    expect(errno(() => k.registerKprobe(kp))).toBe('EINVAL');
  });

  it('should refuse to probe an exception instruction (ud2) with EINVAL', () => {
    const { m, k } = bootWithKprobes();
    const at = addr(m, 'vfs_write');
    m.kernel.memory.textPoke(at, new Uint8Array([0x0f, 0x0b]));
    expect(errno(() => k.registerKprobe({ addr: at }))).toBe('EINVAL');
  });

  it('should unregister what registerKprobes already did when one fails', () => {
    const { m, k } = bootWithKprobes();
    const a: Kprobe = { symbolName: 'vfs_read' };
    const b: Kprobe = { symbolName: 'vfs_write' };
    const bad: Kprobe = { symbolName: 'nope' };
    expect(errno(() => k.registerKprobes([a, b, bad]))).toBe('ENOENT');
    expect([...k.sites()]).toEqual([]);
    expect(k.get(addr(m, 'vfs_read'))).toBeUndefined();
    expect(m.space.readU8(addr(m, 'vfs_read'))).not.toBe(0xcc);
  });

  it('should arm by writing int3 and restore the original byte when unregistered', () => {
    const { m, k } = bootWithKprobes();
    const at = addr(m, 'vfs_read');
    const original = m.space.readU8(at);
    const kp: Kprobe = { addr: at };
    k.registerKprobe(kp);
    expect(m.space.readU8(at)).toBe(0xcc);
    k.unregisterKprobe(kp);
    expect(m.space.readU8(at)).toBe(original);
    expect(k.get(at)).toBeUndefined();
  });
});

describe('aggregated probes', () => {
  it('should run every probe at one address, newest first, and keep the rest armed when one leaves', () => {
    const { m, k } = bootWithKprobes();
    const order: string[] = [];
    const a: Kprobe = {
      symbolName: 'vfs_read',
      preHandler: () => {
        order.push('a');
        return 0;
      },
    };
    const b: Kprobe = {
      symbolName: 'vfs_read',
      preHandler: () => {
        order.push('b');
        return 0;
      },
    };
    k.registerKprobe(a);
    k.registerKprobe(b);
    run(m, ['cat', '/etc/hostname']);
    expect(order.slice(0, 2)).toEqual(['b', 'a']);
    k.unregisterKprobe(b);
    order.length = 0;
    run(m, ['cat', '/etc/hostname']);
    expect(order.length).toBeGreaterThan(0);
    expect(new Set(order)).toEqual(new Set(['a']));
    expect(m.space.readU8(addr(m, 'vfs_read'))).toBe(0xcc);
  });

  it('should skip the remaining handlers and the single-step when a pre-handler returns non-zero', () => {
    const { m, k } = bootWithKprobes();
    const order: string[] = [];
    const older: Kprobe = {
      symbolName: 'sys_getppid',
      preHandler: () => {
        order.push('older');
        return 0;
      },
    };
    const newer: Kprobe = {
      symbolName: 'sys_getppid',
      // Emulate `return 42`: set rax, pop the return address, and tell kprobes not to step.
      preHandler: (_p, regs) => {
        order.push('newer');
        regs.ax = 42n;
        regs.ip = regs.cpu.addressSpace.readU64(regs.sp);
        regs.sp += 8n;
        return 1;
      },
    };
    k.registerKprobe(older);
    k.registerKprobe(newer);
    const t = m.spawn(['hello']);
    m.run({ until: () => t.exited });
    expect(t.exitCode).toBe(0);
    expect(order.every((x) => x === 'newer')).toBe(true);
  });
});

describe('enable, disable and the global switch', () => {
  it('should not fire while disabled and fire again once enabled', () => {
    const { m, k } = bootWithKprobes();
    let hits = 0;
    const kp: Kprobe = {
      symbolName: 'vfs_read',
      flags: KprobeFlag.DISABLED,
      preHandler: () => {
        hits++;
        return 0;
      },
    };
    k.registerKprobe(kp);
    expect(m.space.readU8(kp.addr!)).not.toBe(0xcc);
    run(m, ['cat', '/etc/hostname']);
    expect(hits).toBe(0);
    k.enableKprobe(kp);
    run(m, ['cat', '/etc/hostname']);
    expect(hits).toBeGreaterThan(0);
    const before = hits;
    k.disableKprobe(kp);
    run(m, ['cat', '/etc/hostname']);
    expect(hits).toBe(before);
    expect(errno(() => k.enableKprobe({ symbolName: 'vfs_read' }))).toBe('EINVAL');
    expect(errno(() => k.disableKprobe({ symbolName: 'vfs_read' }))).toBe('EINVAL');
  });

  it('should disarm everything without changing any probe state, and re-arm it', () => {
    const { m, k } = bootWithKprobes();
    let hits = 0;
    const kp: Kprobe = {
      symbolName: 'vfs_read',
      preHandler: () => {
        hits++;
        return 0;
      },
    };
    const off: Kprobe = { symbolName: 'vfs_write', flags: KprobeFlag.DISABLED };
    k.registerKprobe(kp);
    k.registerKprobe(off);
    expect(k.debugfs.writeEnabled('0\n')).toBe(true);
    expect(k.debugfs.enabled()).toBe('0\n');
    run(m, ['cat', '/etc/hostname']);
    expect(hits).toBe(0);
    expect(k.debugfs.list()).not.toContain('vfs_read+0x0    [DISABLED]');
    expect(k.debugfs.writeEnabled('y')).toBe(true);
    run(m, ['cat', '/etc/hostname']);
    expect(hits).toBeGreaterThan(0);
    expect(m.space.readU8(off.addr!)).not.toBe(0xcc);
    expect(k.debugfs.writeEnabled('x')).toBe(false);
    expect(m.printk.dmesg()).toMatch(/Kprobes globally disabled\n.*Kprobes globally enabled/);
  });
});

describe('debugfs', () => {
  it('should print kprobes/list in the kernel format', () => {
    const { m, k } = bootWithKprobes();
    k.registerKprobe({ symbolName: 'vfs_read' });
    k.registerKprobe({ symbolName: 'vfs_write', offset: 1, flags: KprobeFlag.DISABLED });
    const px = (a: bigint) => a.toString(16).padStart(16, '0');
    const lines = k.debugfs.list().split('\n').filter(Boolean).sort();
    expect(lines).toEqual(
      [
        `${px(addr(m, 'vfs_read'))}  k  vfs_read+0x0    `,
        `${px(addr(m, 'vfs_write', 1))}  k  vfs_write+0x1    [DISABLED]`,
      ].sort(),
    );
    // Without the kretprobe booster the trampoline has a kprobe of its own, listed as 2.6.12 lists it.
    k.config.kretprobeBooster = false;
    expect(k.debugfs.list()).toContain(`${px(addr(m, 'kretprobe_trampoline'))}  k  kretprobe_trampoline+0x0    \n`);
    expect(k.debugfs.blacklist()).toMatch(/^0x[0-9a-f]{16}-0x[0-9a-f]{16}\tentry_SYSCALL_64\n/m);
    // One line per address (entry_SYSCALL_64 shares its address with the __entry_text_start marker).
    const blacklist = k.debugfs.blacklist().trim().split('\n');
    expect(new Set(blacklist).size).toBe(blacklist.length);
    expect(k.debugfs.blacklist()).toMatch(/\tkretprobe_trampoline\n/);
  });
});

describe('re-entry', () => {
  it('should count a probe hit inside another probe handler as missed and not run its handlers', () => {
    const { m, k } = bootWithKprobes();
    let innerHits = 0;
    const inner: Kprobe = {
      symbolName: 'strlen',
      preHandler: () => {
        innerHits++;
        return 0;
      },
    };
    k.registerKprobe(inner);
    const str = m.kernel.memory.heap.alloc(16);
    m.space.write(str, new TextEncoder().encode('hello\0'));
    let lengths = 0n;
    k.registerKprobe({
      symbolName: 'vfs_read',
      preHandler: (_p, regs) => {
        lengths += m.kernel.guest.call(regs.cpu.id, addr(m, 'strlen'), [str], { instrumentation: true });
        return 0;
      },
    });
    run(m, ['cat', '/etc/hostname']);
    expect(lengths).toBeGreaterThan(0n);
    expect(inner.nmissed).toBeGreaterThan(0);
    expect(innerHits).toBe(0);
  });
});

describe('resume_execution on real code', () => {
  it.each([
    ['vfs_read', 'ffd0', 'call *%rax', ['cat', '/etc/motd']],
    ['sysfs_kf_read', 'ff5008', 'call *0x8(%rax)', ['cat', '/sys/block/ram0/name']],
    ['sock_recvmsg', 'ff5038', 'call *0x38(%rax)', ['net', '2']],
    ['do_syscall_64', '42ff14e5', 'call *table(,%r12,8)', ['hello']],
    ['sys_read', 'e8', 'call rel32', ['cat', '/etc/motd']],
    ['vfs_read', 'c3', 'ret', ['cat', '/etc/motd']],
  ])('should step %s`s %s (%s) out of line and resume correctly', (sym, hex, _what, argv) => {
    const expected = run(bootWithKprobes().m, argv);
    const { m, k } = bootWithKprobes();
    const at = findInsn(m, sym, hex);
    const fixups: string[] = [];
    k.events$.subscribe((e: KprobeEvent) => {
      if (e.type === 'kprobe:resumed' && e.addr === at) fixups.push(e.fixup);
    });
    const kp: Kprobe = { addr: at, postHandler: () => {} };
    k.registerKprobe(kp);
    expect(run(m, argv)).toBe(expected);
    expect(fixups.length).toBeGreaterThan(0);
    expect(m.printk.dmesg()).not.toMatch(/Oops|BUG/);
  });

  it('should step the jump-table jmp of vsnprintf (a module printk goes through it)', () => {
    const { m, k } = bootWithKprobes();
    const at = findInsn(m, 'vsnprintf', 'ff24cd');
    let hits = 0;
    k.registerKprobe({
      addr: at,
      preHandler: () => {
        hits++;
        return 0;
      },
    });
    // The module's init_module printks, and printk formats through vsnprintf.
    m.modules.load(readHelloModule(), 'hello.ko');
    expect(hits).toBeGreaterThan(0);
    expect(m.printk.dmesg()).toMatch(/hello: /);
    expect(m.printk.dmesg()).not.toMatch(/Oops/);
  });
});

describe('faults during the single-step', () => {
  it('should let the exception-table fixup of a probed user copy return -EFAULT, with no oops', () => {
    const { m, k } = bootWithKprobes();
    const at = [...m.kernel.exTable.keys()].find((a) => m.kallsyms.lookup(a)?.sym.name === 'copy_user_generic')!;
    const faults: KprobeEvent[] = [];
    k.events$.subscribe((e) => e.type === 'kprobe:fault' && faults.push(e));
    k.registerKprobe({ addr: at });
    const out = run(m, ['fault']);
    expect(out).toContain('write(1, 0x10, 4) = -14');
    expect(faults.length).toBe(1);
    expect(m.printk.dmesg()).not.toMatch(/Oops|BUG/);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_DIR } from '@int3/kernel';
import { kprobesCore } from '../src/kprobes.js';

function readHelloModule(): Uint8Array {
  return new Uint8Array(readFileSync(join(IMAGE_DIR, 'modules', 'hello.ko')));
}

describe('KprobesCore.getHalves', () => {
  it('should find a site by the int32 halves of its address, as the trap path looks it up', () => {
    const { m, k } = bootWithKprobes();
    const at = addr(m, 'do_sys_open');
    const p = { addr: at, preHandler: () => 0 };
    k.registerKprobe(p);
    const lo = Number(BigInt.asIntN(32, at));
    const hi = Number(BigInt.asIntN(32, at >> 32n));
    expect(kprobesCore(k).getHalves(lo, hi)).toBe(k.get(at));
    expect(kprobesCore(k).getHalves(lo, hi)?.addr).toBe(at);
    expect(kprobesCore(k).getHalves(lo, 0)).toBeUndefined();
    expect(kprobesCore(k).getHalves((lo + 1) | 0, hi)).toBeUndefined();
    k.unregisterKprobe(p);
    expect(kprobesCore(k).getHalves(lo, hi)).toBeUndefined();
  });
});
