import { describe, expect, it } from 'vitest';
import { Machine } from '../src/machine/machine.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';

const image = readSampleImage();
const boot = (cpus: number) => Machine.boot({ image, cpus, programs: sampleProgram });

function runWorkload(cpus: number, argv: string[]) {
  const m = boot(cpus);
  const task = m.spawn(argv);
  const outcome = m.run({ until: () => task.exited });
  return { m, task, outcome, out: m.console.map((c) => c.text).join(''), dmesg: m.printk.dmesg() };
}

describe.each([1, 4])('workloads on %i CPU(s)', (cpus) => {
  it.each([
    [['hello'], /^Hello from int3, pid 1!\n$/],
    [['cat', '/etc/motd'], /^Welcome to int3\.\n.*\n.*\n$/],
    [['cat', '/etc/hostname'], /^int3\n$/],
    [['cat', '/proc/version'], /^Linux version \S+-int3 .*\n$/],
    [['cat', '/sys/block/ram0/name'], /^ram0\n$/],
    [['cat', '/sys/class/net/lo/name'], /^lo\n$/],
    [['open', '/proc/version'], /^open: \/proc\/version is fd 3\n$/],
    [['mkdir', '/tmp/x'], /^mkdir: created \/tmp\/x\n$/],
    [['fork', '5'], /fork: reaped 5 children\n$/],
    [['dd', '8'], /^dd: 8 blocks of 4096 bytes written and verified\n$/],
    [['net', '4'], /^net: received 4 messages \(\d+ bytes\) from 127\.0\.0\.1:\d+\n$/],
    [['spin', '20000'], /^spin: 20000 rounds, hash [0-9a-f]{16}\n$/],
  ])('should run %j to a clean exit', (argv, expected) => {
    const { task, outcome, out, dmesg } = runWorkload(cpus, argv);
    expect(outcome, dmesg).toEqual({ reason: 'done' });
    expect(out).toMatch(expected);
    expect(task.exitCode, out).toBe(0);
    expect(dmesg).not.toMatch(/Oops|BUG|segfault/);
  });

  it('should fail a bad user pointer with -EFAULT, then deliver SIGSEGV and go on', () => {
    const { m, task, out, dmesg } = runWorkload(cpus, ['fault']);
    expect(out).toContain('write(1, 0x10, 4) = -14');
    expect(task.killedBy).toBe(11);
    expect(task.exitCode).toBe(11);
    expect(dmesg).toMatch(/fault\[1\]: segfault at 10 ip [0-9a-f]{16} sp [0-9a-f]{16} error 6/);
    const next = m.spawn(['hello']);
    expect(m.run({ until: () => next.exited })).toEqual({ reason: 'done' });
    expect(next.exitCode).toBe(0);
  });

  it('should reap every child of fork on any CPU and give each a distinct pid', () => {
    const { out } = runWorkload(cpus, ['fork', '6']);
    const pids = [...out.matchAll(/is pid (\d+)/g)].map((x) => Number(x[1]));
    expect(new Set(pids).size).toBe(6);
  });
});

describe('a kernel oops', () => {
  it('should kill only the task that oopsed, with a report, and leave the machine running', () => {
    const m = boot(2);
    const vfsRead = m.kallsyms.lookupName('vfs_read')!.address;
    const saved = m.space.read(vfsRead, 2);
    m.kernel.memory.textPoke(vfsRead, new Uint8Array([0x0f, 0x0b])); // BUG() is ud2
    const victim = m.spawn(['cat', '/etc/motd']);
    expect(m.run({ until: () => victim.exited })).toEqual({ reason: 'done' });
    expect(victim.killedBy).toBe(9);
    const dmesg = m.printk.dmesg();
    expect(dmesg).toContain('invalid opcode: 0000 [#1] SMP');
    expect(dmesg).toMatch(/RIP: 0010:vfs_read\+0x0\/0x[0-9a-f]+/);
    expect(dmesg).toMatch(
      /Call Trace:\n.*<TASK>\n.* ksys_read\+0x[0-9a-f]+\/0x[0-9a-f]+\n.* sys_read\+0x[0-9a-f]+\/0x[0-9a-f]+\n.* do_syscall_64\+/,
    );
    expect(dmesg).toContain(`CPU: 0 PID: 1 Comm: cat Not tainted ${m.release} #1`);
    m.kernel.memory.textPoke(vfsRead, saved);
    const after = m.spawn(['cat', '/etc/hostname']);
    expect(m.run({ until: () => after.exited })).toEqual({ reason: 'done' });
    expect(after.exitCode).toBe(0);
    expect(m.console.map((c) => c.text).join('')).toContain('int3\n');
  });

  it('should panic instead when panic_on_oops is set', () => {
    const m = Machine.boot({ image, cpus: 1, programs: sampleProgram, panicOnOops: true });
    m.kernel.memory.textPoke(m.kallsyms.lookupName('vfs_read')!.address, new Uint8Array([0x0f, 0x0b]));
    m.spawn(['cat', '/etc/motd']);
    expect(m.run()).toEqual({ reason: 'panic', message: 'Fatal exception' });
    expect(m.printk.dmesg()).toContain('Kernel panic - not syncing: Fatal exception');
  });
});

describe('the syscall workload (bpftrace’s tests/testprogs/syscall.c)', () => {
  it('should sleep in nanosleep for the time given as bpftrace’s program reads it (1e8 = 100 ms)', () => {
    for (const [arg, ns] of [
      ['1e8', 100_000_000],
      ['2.5e6', 2_500_000],
      ['300000', 300_000],
    ] as const) {
      const { m, task, outcome, out } = runWorkload(1, ['syscall', 'nanosleep', arg]);
      expect(outcome).toEqual({ reason: 'done' });
      expect([out, task.exitCode]).toEqual(['', 0]);
      expect(m.clock(0)).toBeGreaterThanOrEqual(ns);
      expect(m.clock(0)).toBeLessThan(ns + 1_000_000);
    }
  });

  it('should make each of its other calls and exit 0 with no output', () => {
    for (const argv of [
      ['syscall', 'openat', '/tmp/made'],
      ['syscall', 'open'],
      ['syscall', 'read'],
      ['syscall', 'write', '/tmp/w'],
      ['syscall', 'connect', '127.0.0.1', '7777'],
      ['syscall', 'nanosleep'],
    ]) {
      const { task, outcome, out } = runWorkload(2, argv);
      expect([argv, outcome, out, task.exitCode]).toEqual([argv, { reason: 'done' }, '', 0]);
    }
  });

  it('should create the file openat names', () => {
    const m = boot(1);
    const made = m.spawn(['syscall', 'openat', '/tmp/made']);
    m.run({ until: () => made.exited });
    const open = m.spawn(['open', '/tmp/made']);
    m.run({ until: () => open.exited });
    expect(m.console.map((c) => c.text).join('')).toBe('open: /tmp/made is fd 3\n');
  });

  it('should refuse what bpftrace’s program refuses, with its messages and exit status 1', () => {
    const bad = (argv: string[]) => {
      const { task, out } = runWorkload(1, argv);
      return [task.exitCode >> 8, out.split('\n')[0]];
    };
    expect(bad(['syscall', 'nanosleep', '-5'])).toEqual([
      1,
      'Invalid argument: -5; the argument should be a non-negative number with no sign',
    ]);
    expect(bad(['syscall', 'nanosleep', '1x2'])[0]).toBe(1);
    expect(bad(['syscall', 'execve'])).toEqual([1, 'execve is not supported yet']);
    expect(bad(['syscall'])).toEqual([1, 'Usage:']);
    expect(bad(['syscall', 'connect', 'localhost', '80'])).toEqual([1, 'Argument invalid']);
  });
});
