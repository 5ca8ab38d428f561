import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMAGE_DIR, Machine, ModuleState, type PtRegName, readSampleImage, sampleProgram } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { Kprobes } from '../src/index.js';
import { kprobesCore } from '../src/kprobes.js';
import { machineHost } from '../src/machine-host.js';
import { bindGuestKprobes } from '../src/module-api/guest-kprobes.js';
import { KprobeLayout } from '../src/module-api/guest-layout.js';

const image = readSampleImage();
const modulesDir = join(IMAGE_DIR, 'modules', 'kprobes');
const MODULES = ['jprobe_example', 'kprobe_example', 'kretprobe_enomem', 'kretprobe_example'];
const ko = (name: string) => new Uint8Array(readFileSync(join(modulesDir, `${name}.ko`)));
const hex = (v: bigint) => v.toString(16).padStart(16, '0');

function boot() {
  const m = Machine.boot({ image, cpus: 2, programs: sampleProgram });
  const kprobes = Kprobes.init(m);
  const guest = bindGuestKprobes(machineHost(m), kprobesCore(kprobes));
  const sym = (n: string) => m.kallsyms.lookupName(n)!.address;
  /** Runs a workload to its exit; returns what it printed. */
  const run = (argv: string[]) => {
    const before = m.console.length;
    const task = m.spawn(argv);
    expect(m.run({ until: () => task.exited }), m.printk.dmesg()).toEqual({ reason: 'done' });
    return {
      task,
      out: m.console
        .slice(before)
        .map((c) => c.text)
        .join(''),
    };
  };
  const dmesg = (re: RegExp) =>
    m.printk
      .records()
      .map((r) => r.text)
      .filter((t) => re.test(t));
  /** Hits of every probe at `addr`, counted from the event stream. */
  const hits = (addr: bigint) => {
    let n = 0;
    kprobes.events$.subscribe((e) => {
      if (e.type === 'kprobe:hit' && e.addr === addr) n++;
    });
    return () => n;
  };
  /** A host-side TypeScript kprobe at `addr` recording registers at each hit. */
  const spy = (addr: bigint, names: PtRegName[]) => {
    const seen: bigint[][] = [];
    kprobes.registerKprobe({ addr, preHandler: (_p, regs) => void seen.push(names.map((n) => regs.get(n))) });
    return seen;
  };
  return { m, kprobes, guest, sym, run, dmesg, hits, spy };
}

/** What a workload prints on a machine without probes. */
function unprobed(argv: string[]): string {
  const m = Machine.boot({ image, cpus: 2, programs: sampleProgram });
  const task = m.spawn(argv);
  m.run({ until: () => task.exited });
  return m.console.map((c) => c.text).join('');
}

describe('kprobe_example.ko', () => {
  it('should run its guest pre- and post-handlers at every __blockdev_direct_IO call of dd, seeing the real registers', () => {
    const { m, kprobes, sym, run, dmesg, hits, spy } = boot();
    const addr = sym('__blockdev_direct_IO');
    m.modules.load(ko('kprobe_example'), 'kprobe_example.ko');
    expect(dmesg(/^kprobe_example: planted/)).toEqual([`kprobe_example: planted kprobe at 0x${hex(addr)}`]);
    expect(kprobes.debugfs.list()).toContain(`${hex(addr)}  k  __blockdev_direct_IO+0x0`);
    // Registered after the module's: aggregated, and run after it (newest first).
    const host = spy(addr, ['di', 'si']);
    const count = hits(addr);
    const { out, task } = run(['dd', '3']);
    expect(out).toBe(unprobed(['dd', '3']));
    expect(task.exitCode).toBe(0);
    const pre = dmesg(/^kprobe_example: pre_handler/);
    expect(count()).toBe(6); // three blocks written, three read back
    expect(pre).toEqual(
      host.map(
        ([di, si]) =>
          `kprobe_example: pre_handler: p->addr=0x${hex(addr)}, ip=${(addr + 1n).toString(16)}, flags=0x46, di=${di.toString(16)}, si=${si.toString(16)}`,
      ),
    );
    // The post-handler runs after the single-step, with TF still set in the flags it sees.
    expect(dmesg(/^kprobe_example: post_handler/)).toEqual(
      Array(6).fill(`kprobe_example: post_handler: p->addr=0x${hex(addr)}, flags=0x146`),
    );
    expect(dmesg(/fault_handler|kprobes: .*failed/)).toEqual([]);
  });

  it('should give its guest pre-handler the pt_regs of an int3 hit when the probe is jump-optimized', () => {
    // Without its post_handler (cleared before init registers it) the probe can be optimized.
    const pre = (optimized: boolean) => {
      const { m, kprobes, sym, run, dmesg, hits } = boot();
      if (!optimized) kprobes.optimization.enabled = false;
      const addr = sym('__blockdev_direct_IO');
      m.modules.onModule((state, mod) => {
        if (state !== ModuleState.COMING || mod.name !== 'kprobe_example') return;
        const kp = m.kallsyms.lookupName('kp')!.address;
        expect(kp >= mod.regions[0][0]).toBe(true);
        m.space.writeU64(kp + BigInt(KprobeLayout.postHandler), 0n);
      });
      m.modules.load(ko('kprobe_example'), 'kprobe_example.ko');
      kprobes.optimization.runNow();
      expect(kprobes.get(addr)!.optimized).toBe(optimized);
      const count = hits(addr);
      const { out } = run(['dd', '3']);
      expect(out).toBe(unprobed(['dd', '3']));
      expect(count()).toBe(6);
      expect(dmesg(/fault_handler|kprobes: .*failed/)).toEqual([]);
      return { lines: dmesg(/^kprobe_example: pre_handler/), addr };
    };
    const o = pre(true);
    expect(o.lines).toHaveLength(6);
    expect(o.lines[0]).toContain(`, ip=${(o.addr + 1n).toString(16)},`);
    expect(o.lines).toEqual(pre(false).lines);
  });

  it('should unregister its probe at rmmod, leaving the original instruction', () => {
    const { m, kprobes, guest, sym, run, dmesg } = boot();
    const addr = sym('__blockdev_direct_IO');
    const original = m.space.readU8(addr);
    m.modules.load(ko('kprobe_example'), 'kprobe_example.ko');
    expect(m.space.readU8(addr)).toBe(0xcc);
    m.modules.unload('kprobe_example');
    expect(dmesg(/unregistered/)).toEqual([`kprobe_example: kprobe at 0x${hex(addr)} unregistered, 0 missed`]);
    expect(kprobes.debugfs.list()).not.toContain('__blockdev_direct_IO');
    expect(guest.addresses()).toEqual([]);
    expect(m.space.readU8(addr)).toBe(original);
    run(['dd', '1']);
    expect(dmesg(/pre_handler/)).toEqual([]);
  });
});

describe('jprobe_example.ko', () => {
  it('should run jip_queue_xmit with the real arguments of every ip_queue_xmit call, leaving net unchanged', () => {
    const { m, kprobes, sym, run, dmesg, hits, spy } = boot();
    const addr = sym('ip_queue_xmit');
    m.modules.load(ko('jprobe_example'), 'jprobe_example.ko');
    const entry = m.kallsyms.lookupName('jprobe_example:jip_queue_xmit')!.address;
    expect(dmesg(/^jprobe_example: planted/)).toEqual([
      `jprobe_example: planted jprobe at 0x${hex(addr)}, handler addr 0x${hex(entry)}`,
    ]);
    expect(kprobes.debugfs.list()).toContain(`${hex(addr)}  j  ip_queue_xmit+0x0`);
    const host = spy(addr, ['di', 'si', 'dx']);
    const count = hits(addr);
    const { out, task } = run(['net', '3']);
    expect(out).toBe(unprobed(['net', '3']));
    expect(task.exitCode).toBe(0);
    const lines = dmesg(/^jprobe: ip_queue_xmit/);
    expect(lines.length).toBe(count());
    expect(lines.length).toBeGreaterThanOrEqual(8); // handshake, three messages, their ACKs, FINs
    expect(lines.map((l) => /sk=0x(\w+), skb=0x(\w+), fl=0x(\w+)/.exec(l)!.slice(1))).toEqual(
      host.map((regs) => regs.map(hex)),
    );
    expect(lines.every((l) => l.endsWith('daddr=7f000001'))).toBe(true);
    expect(m.printk.dmesg()).not.toMatch(/BUG|Oops|does not match/);
  });

  it('should unregister the jprobe at rmmod', () => {
    const { m, kprobes, run, dmesg } = boot();
    m.modules.load(ko('jprobe_example'), 'jprobe_example.ko');
    m.modules.unload('jprobe_example');
    expect(dmesg(/jprobe_example: jprobe at 0x[0-9a-f]{16} unregistered/).length).toBe(1);
    expect(kprobes.debugfs.list()).not.toContain('ip_queue_xmit');
    run(['net', '1']);
    expect(dmesg(/^jprobe: /)).toEqual([]);
  });
});

describe('kretprobe_example.ko', () => {
  it('should printk "sys_mkdir exited" with each return value of sys_mkdir', () => {
    const { m, kprobes, sym, run, dmesg } = boot();
    const addr = sym('sys_mkdir');
    m.modules.load(ko('kretprobe_example'), 'kretprobe_example.ko');
    expect(dmesg(/^kretprobe_example: planted/)).toEqual([
      `kretprobe_example: planted return probe at 0x${hex(addr)}, maxactive 20`,
    ]);
    expect(kprobes.debugfs.list()).toContain(`${hex(addr)}  r  sys_mkdir+0x0`);
    expect(run(['mkdir', '/tmp/a']).out).toBe('mkdir: created /tmp/a\n');
    expect(run(['mkdir', '/tmp/a']).out).toBe('mkdir: /tmp/a: error -17\n');
    expect(run(['mkdir', '/tmp/none/b']).out).toBe('mkdir: /tmp/none/b: error -2\n');
    expect(dmesg(/sys_mkdir exited/)).toEqual([
      'sys_mkdir exited, returned 0',
      'sys_mkdir exited, returned -17',
      'sys_mkdir exited, returned -2',
    ]);
    m.modules.unload('kretprobe_example');
    expect(dmesg(/^kretprobe_example: return probe/)).toEqual([
      `kretprobe_example: return probe at 0x${hex(addr)} unregistered, 0 missed`,
    ]);
    expect(kprobes.debugfs.list()).not.toContain('sys_mkdir');
    run(['mkdir', '/tmp/c']);
    expect(dmesg(/sys_mkdir exited/).length).toBe(3);
  });
});

describe('kretprobe_enomem.ko', () => {
  it('should make mkdir fail with -ENOMEM through regs->ax, with real ri->data, ri->ret_addr and ri->task', () => {
    const { m, sym, run, dmesg, spy } = boot();
    m.modules.load(ko('kretprobe_enomem'), 'kretprobe_enomem.ko');
    // maxactive was 0 in the struct: the default max(10, 2 × NR_CPUS) is written back.
    expect(dmesg(/^kretprobe_enomem: planted/)).toEqual([
      `kretprobe_enomem: planted at 0x${hex(sym('sys_mkdir'))}, maxactive 10`,
    ]);
    const host = spy(sym('sys_mkdir'), ['di']);
    const { out, task } = run(['mkdir', '/tmp/b']);
    expect(out).toBe('mkdir: /tmp/b: error -12\n');
    expect(task.exitCode).toBe(1 << 8); // the wait status of exit(1)
    const [line] = dmesg(/^kretprobe_enomem: sys_mkdir/);
    const [, path, pid, ret, retAddr] =
      /sys_mkdir\(0x(\w+)\) by pid (\d+) returned (-?\d+) to 0x(\w+), now -ENOMEM/.exec(line)!;
    expect(BigInt(`0x${path}`)).toBe(host[0][0]); // kept in ri->data by the entry handler
    expect(Number(pid)).toBe(task.pid);
    expect(ret).toBe('0'); // the directory was made; only the result was changed
    expect(m.kallsyms.format(BigInt(`0x${retAddr}`))).toMatch(/^do_syscall_64\+0x[0-9a-f]+\//);
    m.modules.unload('kretprobe_enomem');
    expect(run(['mkdir', '/tmp/b']).out).toBe('mkdir: /tmp/b: error -17\n');
  });
});

describe('every kprobes sample module at once', () => {
  it('should load, run dd, net and mkdir, and unload to an empty probe list', () => {
    const { m, kprobes, guest, run, dmesg } = boot();
    for (const name of MODULES.filter((n) => n !== 'kretprobe_enomem')) m.modules.load(ko(name), `${name}.ko`);
    expect(guest.addresses().length).toBe(3);
    expect(run(['dd', '1']).out).toBe(unprobed(['dd', '1']));
    expect(run(['net', '1']).out).toBe(unprobed(['net', '1']));
    expect(run(['mkdir', '/tmp/all']).out).toBe('mkdir: created /tmp/all\n');
    expect(dmesg(/sys_mkdir exited/)).toEqual(['sys_mkdir exited, returned 0']);
    for (const name of ['kprobe_example', 'jprobe_example', 'kretprobe_example']) m.modules.unload(name);
    expect(kprobes.debugfs.list()).toBe('');
    expect(guest.addresses()).toEqual([]);
    expect(m.printk.dmesg()).not.toMatch(/BUG|Oops|going with/);
  });
});

const hasGcc = spawnSync('gcc', ['--version']).status === 0;
const toolchain = () =>
  hasGcc
    ? `${spawnSync('gcc', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]}\n${spawnSync('ld', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]}\n`
    : '';
const sameToolchain = hasGcc && toolchain() === readFileSync(join(IMAGE_DIR, 'TOOLCHAIN'), 'utf8');

describe('image/modules/kprobes/build.sh', () => {
  it.skipIf(!sameToolchain)('should rebuild every committed kprobes .ko byte for byte', () => {
    const out = mkdtempSync(join(tmpdir(), 'int3-kprobes-modules-'));
    try {
      const r = spawnSync('bash', [join(modulesDir, 'build.sh'), out], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      for (const name of MODULES) expect(Buffer.compare(readFileSync(join(out, `${name}.ko`)), ko(name)), name).toBe(0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
