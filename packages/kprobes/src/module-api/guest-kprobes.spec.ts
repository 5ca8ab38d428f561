import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IMAGE_DIR, Machine, readSampleImage, sampleProgram } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { KprobeFlag } from '../core/kprobe.js';
import { Errno } from '../kprobe-error.js';
import { Kprobes, kprobesCore } from '../kprobes.js';
import { machineHost } from '../machine-host.js';
import { bindGuestKprobes, GUEST_KPROBES_GATES, type GuestKprobesGate } from './guest-kprobes.js';
import { KprobeLayout, KretprobeLayout } from './guest-layout.js';

const image = readSampleImage();

function setup() {
  const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
  const kprobes = Kprobes.init(m);
  const g = bindGuestKprobes(machineHost(m), kprobesCore(kprobes));
  const gate = (name: GuestKprobesGate, ...args: bigint[]) =>
    Number(
      BigInt.asIntN(32, m.kernel.guest.call(0, g.gates.get(name)!, args, { asTask: m.kernel.image.symbols.init_task })),
    );
  const cString = (s: string) => {
    const at = m.kernel.memory.heap.alloc(s.length + 1);
    m.space.write(at, new TextEncoder().encode(`${s}\0`));
    return at;
  };
  /** A guest struct kprobe (or the kp of a bigger struct) in kernel memory. */
  const kprobe = (
    f: { symbol?: string; offset?: number; addr?: bigint; pre?: bigint; flags?: number },
    size: number = KprobeLayout.SIZE,
  ) => {
    const at = m.kernel.memory.heap.alloc(size);
    if (f.symbol !== undefined) m.space.writeU64(at + BigInt(KprobeLayout.symbolName), cString(f.symbol));
    m.space.writeU32(at + BigInt(KprobeLayout.offset), f.offset ?? 0);
    m.space.writeU64(at + BigInt(KprobeLayout.addr), f.addr ?? 0n);
    m.space.writeU64(at + BigInt(KprobeLayout.preHandler), f.pre ?? 0n);
    m.space.writeU32(at + BigInt(KprobeLayout.flags), f.flags ?? 0);
    return at;
  };
  const run = (argv: string[]) => {
    const task = m.spawn(argv);
    expect(m.run({ until: () => task.exited })).toEqual({ reason: 'done' });
    return task;
  };
  return { m, kprobes, g, gate, kprobe, run, sym: (n: string) => m.kallsyms.lookupName(n)!.address };
}

describe(bindGuestKprobes, () => {
  it('should define each gate once, as a global text symbol modules link against', () => {
    const { m, kprobes, g } = setup();
    expect(bindGuestKprobes(machineHost(m), kprobesCore(kprobes))).toBe(g);
    for (const name of GUEST_KPROBES_GATES) {
      expect(m.kallsyms.lookupAll(name).map((s) => [s.address, s.type])).toEqual([[g.gates.get(name), 'T']]);
    }
  });
});

describe('register_kprobe (gate)', () => {
  it('should return the negated errno of each refusal', () => {
    const { gate, kprobe, sym } = setup();
    expect(gate('register_kprobe', kprobe({ symbol: 'no_such_function' }))).toBe(-Errno.ENOENT);
    expect(gate('register_kprobe', kprobe({ symbol: 'vfs_read', addr: sym('vfs_read') }))).toBe(-Errno.EINVAL);
    expect(gate('register_kprobe', kprobe({}))).toBe(-Errno.EINVAL);
    // vfs_read+2 is inside `mov %rsp,%rbp` (push %rbp is one byte, the mov three).
    expect(gate('register_kprobe', kprobe({ symbol: 'vfs_read', offset: 2 }))).toBe(-Errno.EILSEQ);
    expect(gate('register_kprobe', 0x10n)).toBe(-Errno.EINVAL);
  });

  it('should refuse the same struct twice with -EINVAL and write the resolved addr back', () => {
    const { m, kprobes, gate, kprobe, sym } = setup();
    const kp = kprobe({ symbol: 'vfs_read' });
    expect(gate('register_kprobe', kp)).toBe(0);
    expect(m.space.readU64(kp + BigInt(KprobeLayout.addr))).toBe(sym('vfs_read'));
    expect(gate('register_kprobe', kp)).toBe(-Errno.EINVAL);
    expect(kprobes.debugfs.list()).toMatch(/ k {2}vfs_read\+0x0 /);
  });

  it('should register disabled when the struct says KPROBE_FLAG_DISABLED, and enable/disable through the gates', () => {
    const { m, kprobes, gate, kprobe } = setup();
    const kp = kprobe({ symbol: 'vfs_read', flags: KprobeFlag.DISABLED });
    const flags = () => m.space.readU32(kp + BigInt(KprobeLayout.flags));
    expect(gate('register_kprobe', kp)).toBe(0);
    expect(kprobes.debugfs.list()).toMatch(/vfs_read\+0x0 +\[DISABLED\]/);
    expect(gate('enable_kprobe', kp)).toBe(0);
    expect(flags()).toBe(0);
    expect(kprobes.debugfs.list()).not.toContain('[DISABLED]');
    expect(gate('disable_kprobe', kp)).toBe(0);
    expect(flags()).toBe(KprobeFlag.DISABLED);
    expect(gate('enable_kprobe', kprobe({ symbol: 'vfs_read' }))).toBe(-Errno.EINVAL);
  });

  it('should unregister on unregister_kprobe and ignore a struct it does not know', () => {
    const { m, kprobes, g, gate, kprobe, sym } = setup();
    const kp = kprobe({ symbol: 'vfs_read' });
    const first = m.space.readU8(sym('vfs_read'));
    expect(gate('register_kprobe', kp)).toBe(0);
    expect(m.space.readU8(sym('vfs_read'))).toBe(0xcc);
    gate('unregister_kprobe', kprobe({ symbol: 'vfs_read' }));
    gate('unregister_jprobe', kp);
    expect(g.lookup(kp)).toBeDefined();
    gate('unregister_kprobe', kp);
    expect(g.lookup(kp)).toBeUndefined();
    expect(m.space.readU8(sym('vfs_read'))).toBe(first);
    expect(kprobes.debugfs.list()).not.toContain('vfs_read');
  });
});

describe('register_kprobes (gate)', () => {
  it('should unregister the probes already registered when one fails', () => {
    const { m, kprobes, gate, kprobe } = setup();
    const array = m.kernel.memory.heap.alloc(16);
    m.space.writeU64(array, kprobe({ symbol: 'vfs_read' }));
    m.space.writeU64(array + 8n, kprobe({ symbol: 'no_such_function' }));
    expect(gate('register_kprobes', array, 2n)).toBe(-Errno.ENOENT);
    expect(kprobes.debugfs.list()).not.toContain('vfs_read');
    expect(gate('register_kprobes', array, 0n)).toBe(-Errno.EINVAL);
    // As in Linux, the first struct now has both symbol_name and the addr written back: refused.
    expect(gate('register_kprobes', array, 1n)).toBe(-Errno.EINVAL);
    m.space.writeU64(array, kprobe({ symbol: 'vfs_read' }));
    expect(gate('register_kprobes', array, 1n)).toBe(0);
    expect(kprobes.debugfs.list()).toContain('vfs_read');
    gate('unregister_kprobes', array, 1n);
    expect(kprobes.debugfs.list()).not.toContain('vfs_read');
  });
});

describe('register_kretprobe (gate)', () => {
  it('should write the default maxactive back and refuse a data_size over 4096 with -E2BIG', () => {
    const { m, gate, kprobe } = setup();
    const rp = kprobe({ symbol: 'sys_mkdir' }, KretprobeLayout.SIZE);
    expect(gate('register_kretprobe', rp)).toBe(0);
    expect(m.space.readU32(rp + BigInt(KretprobeLayout.maxactive))).toBe(10);
    const big = kprobe({ symbol: 'sys_getpid' }, KretprobeLayout.SIZE);
    m.space.writeU64(big + BigInt(KretprobeLayout.dataSize), 4097n);
    expect(gate('register_kretprobe', big)).toBe(-Errno.E2BIG);
    expect(gate('register_kretprobe', kprobe({ symbol: 'sys_mkdir', offset: 1 }, KretprobeLayout.SIZE))).toBe(
      -Errno.EINVAL,
    );
  });
});

describe('a guest handler that oopses', () => {
  it('should be reported and count as returning 0, the workload running on unharmed', () => {
    const { m, g, gate, kprobe, run } = setup();
    // A pre_handler pointing at an unmapped page: the call faults at its first fetch.
    expect(gate('register_kprobe', kprobe({ symbol: '__blockdev_direct_IO', pre: 0x10n }))).toBe(0);
    const task = run(['dd', '1']);
    expect(task.exitCode).toBe(0);
    expect(m.console.map((c) => c.text).join('')).toBe('dd: 1 blocks of 4096 bytes written and verified\n');
    expect(g.handlers.failures).toBe(2);
    expect(m.printk.dmesg()).toMatch(
      /kprobes: pre_handler of kprobe at __blockdev_direct_IO\+0x0\/0x[0-9a-f]+ handler 0x10 failed \(.*oopsed/,
    );
  });
});

describe('a module going with probes still registered', () => {
  it('should have them unregistered, with a warning, before its memory is freed', () => {
    const { m, kprobes, gate, kprobe } = setup();
    m.modules.load(new Uint8Array(readFileSync(join(IMAGE_DIR, 'modules', 'hello.ko'))), 'hello.ko');
    const greet = m.kallsyms.lookupName('hello:hello_greet')!.address;
    expect(gate('register_kprobe', kprobe({ symbol: 'vfs_read', pre: greet }))).toBe(0);
    m.modules.unload('hello');
    expect(kprobes.debugfs.list()).not.toContain('vfs_read');
    expect(m.printk.dmesg()).toMatch(
      /kprobes: module hello is going with a kprobe on vfs_read\+0x0\/0x[0-9a-f]+ still registered; unregistering it/,
    );
  });
});

describe('guest handlers of kprobe_example.ko on other probes', () => {
  const loadExample = (m: Machine) => {
    m.modules.load(
      new Uint8Array(readFileSync(join(IMAGE_DIR, 'modules', 'kprobes', 'kprobe_example.ko'))),
      'kprobe_example.ko',
    );
    return (n: string) => m.kallsyms.lookupName(`kprobe_example:${n}`)!.address;
  };

  it('should write nmissed back into the struct when the handler re-enters its own probe', () => {
    const { m, gate, kprobe, sym } = setup();
    const fn = loadExample(m);
    const kp = kprobe({ symbol: 'printk', pre: fn('handler_pre') });
    expect(gate('register_kprobe', kp)).toBe(0);
    const fmt = m.kernel.memory.heap.alloc(16);
    m.space.write(fmt, new TextEncoder().encode('\x016hello\n\0'));
    m.kernel.guest.call(0, sym('printk'), [fmt], { asTask: m.kernel.image.symbols.init_task });
    // The handler's own printk hit the probe again: a re-entry, stepped without handlers.
    expect(m.space.readU64(kp + BigInt(KprobeLayout.nmissed))).toBe(1n);
    const lines = m.printk.records().map((r) => r.text);
    expect(lines.slice(-2)).toEqual([
      expect.stringMatching(/^kprobe_example: pre_handler: p->addr=0xffffffff[0-9a-f]{8}, /),
      'hello',
    ]);
  });

  it('should call the fault handler with the trap number when the single-stepped copy faults', () => {
    const { m, gate, kprobe, run, sym } = setup();
    const fn = loadExample(m);
    // copy_user_generic+3 is its `rep movsb`, which faults on fault's bad user pointer.
    const kp = kprobe({ symbol: 'copy_user_generic', offset: 3 });
    m.space.writeU64(kp + BigInt(KprobeLayout.faultHandler), fn('handler_fault'));
    expect(gate('register_kprobe', kp)).toBe(0);
    const task = run(['fault']);
    expect(m.console.map((c) => c.text).join('')).toContain('write(1, 0x10, 4) = -14');
    expect(task.killedBy).toBe(11);
    const at = (sym('copy_user_generic') + 3n).toString(16).padStart(16, '0');
    expect(m.printk.records().map((r) => r.text)).toContain(`kprobe_example: fault_handler: p->addr=0x${at}, trap #14`);
  });
});
