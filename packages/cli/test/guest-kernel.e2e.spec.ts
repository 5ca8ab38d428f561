// End-to-end tests of what bpftrace one-liners reach for in the guest kernel: Linux's function names on
// Linux's call paths (nanosleep → hrtimer_nanosleep → do_nanosleep, read → ksys_read → vfs_read, …),
// and the `syscall NAME [ARGS]` workload that makes one system call, as bpftrace's test program does.
import { describe, expect, it } from 'vitest';
import { int3, lines, ok } from './int3.js';

/** The timestamp (s) of an ftrace line. */
const stamp = (line: string) => Number(line.match(/ (\d+\.\d{6}): /)![1]);

describe("the guest kernel's probe targets, through the syscall workload", () => {
  it('should hit hrtimer_nanosleep once under syscall nanosleep 1e8, and do_nanosleep return 100 ms later', () => {
    const out = lines(
      ok([
        'trace',
        '-e',
        'p:h hrtimer_nanosleep',
        '-e',
        'r:d do_nanosleep ret=$retval',
        '--run',
        'syscall nanosleep 1e8',
      ]),
    );
    expect(out).toEqual([
      expect.stringMatching(/^ +syscall-1 +\[000\] d\.\.\.\. +\d+\.\d{6}: h: \(hrtimer_nanosleep\+0x0\/0x[0-9a-f]+\)$/),
      expect.stringMatching(/ d: \(hrtimer_nanosleep\+0x[0-9a-f]+\/0x[0-9a-f]+ <- do_nanosleep\) ret=0x0$/),
    ]);
    const slept = stamp(out[1]) - stamp(out[0]);
    expect(slept).toBeGreaterThanOrEqual(0.1);
    expect(slept).toBeLessThan(0.101);
  });

  it('should count each one-liner target once per call in int3 bpftrace, on the workload that makes the call', () => {
    const r = int3([
      'bpftrace',
      '-e',
      'kprobe:vfs_read,kprobe:vfs_write,kprobe:ksys_read,kprobe:ksys_write,kprobe:do_sys_openat2,' +
        'kprobe:hrtimer_nanosleep,kprobe:do_nanosleep,kprobe:kernel_clone,kprobe:tcp_sendmsg,kprobe:schedule ' +
        '/comm == "syscall"/ { @[func] = count(); }',
      '--run',
      'syscall read',
      '--run',
      'syscall write',
      '--run',
      'syscall openat /tmp/made',
      '--run',
      'syscall nanosleep 1e6',
    ]);
    expect(r.stderr).toBe('Attached 10 probes\n');
    expect(r.status).toBe(0);
    // read and write open their file first (open → do_sys_open → do_sys_openat2), as bpftrace's do.
    expect(lines(r.stdout)).toEqual([
      '@[do_nanosleep]: 1',
      '@[hrtimer_nanosleep]: 1',
      '@[ksys_read]: 1',
      '@[ksys_write]: 1',
      '@[schedule]: 1',
      '@[vfs_read]: 1',
      '@[vfs_write]: 1',
      '@[do_sys_openat2]: 3',
    ]);
  });

  it('should reach kernel_clone from fork, tcp_sendmsg and kfree_skb from loopback TCP', () => {
    const r = int3([
      'bpftrace',
      '-e',
      'kprobe:kernel_clone,kprobe:tcp_sendmsg,kprobe:kfree_skb { @[func, comm] = count(); }',
      '--run',
      'fork 2',
      '--run',
      'net 3',
    ]);
    expect(r.status).toBe(0);
    const counts = Object.fromEntries(
      lines(r.stdout)
        .map((l) => l.match(/^@\[(\w+), (\w+)\]: (\d+)$/)!.slice(1))
        .map(([f, c, n]) => [`${f} ${c}`, Number(n)]),
    );
    expect(counts['kernel_clone fork']).toBe(2);
    expect(counts['kernel_clone net']).toBe(1);
    expect(counts['tcp_sendmsg net']).toBe(3);
    expect(counts['kfree_skb net']).toBeGreaterThanOrEqual(3);
  });

  it('should list the sleeping functions with bpftrace -l', () => {
    expect(lines(ok(['bpftrace', '-l', 'kprobe:*sleep*']))).toEqual(
      expect.arrayContaining(['kprobe:do_nanosleep', 'kprobe:hrtimer_nanosleep', 'kprobe:msleep']),
    );
  });

  it('should refuse an unknown syscall name as bpftrace’s program does, exit status 1', () => {
    const r = int3(['trace', '--run', 'syscall bogus']);
    expect([r.status, r.stderr]).toEqual([
      1,
      'int3: the run failed: workload "syscall" (pid 1) exited with status 1\n',
    ]);
    const shell = int3(['tracefs'], 'run syscall bogus\n');
    expect(lines(shell.stdout).slice(0, 3)).toEqual([
      'bogus is not supported yet',
      'Usage:',
      '\tsyscall <syscall name> [<arguments>]',
    ]);
  }, 180_000);
});
