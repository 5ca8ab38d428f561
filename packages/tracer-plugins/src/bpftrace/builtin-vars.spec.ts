import { describe, expect, it } from 'vitest';
import { BpftraceProgram } from './bpftrace-program.js';
import { fakeRuntime } from './bpftrace-runtime.fixture.js';
import { compileBuiltin } from './builtin-vars.js';

/** Runs `source`'s kprobe probe once on CPU 1 with the given registers; what it printed. */
function hit(
  source: string,
  regs: Parameters<typeof fakeRuntime>[0] = {},
  probe = 'kprobe:vfs_read',
  func = 'vfs_read',
): string {
  let out = '';
  const p = new BpftraceProgram(source, fakeRuntime(regs), 'text', { stdout: (s) => (out += s), stderr: () => {} });
  p.begin();
  const fr = p.frame(probe, func);
  fr.cpu = 1;
  for (const c of p.attachedProbes) c.run(fr);
  return out;
}

describe(compileBuiltin, () => {
  it('should read the task, CPU and clock builtins', () => {
    expect(
      hit(
        'kprobe:vfs_read { printf("%d %d %s %d %d %d %d %x\\n", pid, tid, comm, cpu, ncpus, nsecs, elapsed, curtask); }',
      ),
    ).toBe('42 42 bpftrace 1 2 1000000 0 ffff888000001000\n');
  });

  it('should read arguments from the SysV registers and any register by name with reg()', () => {
    const regs = { di: 1n, si: 2n, dx: 3n, cx: 4n, r8: 5n, r9: 6n, ip: 0xffffffff81000001n };
    expect(
      hit(
        'kprobe:vfs_read { printf("%d %d %d %d %d %d %x\\n", arg0, arg1, arg2, arg3, arg4, arg5, reg("ip")); }',
        regs,
      ),
    ).toBe('1 2 3 4 5 6 ffffffff81000001\n');
  });

  it('should read the return value in a kretprobe and name the probe and function', () => {
    expect(
      hit(
        'kretprobe:vfs_read { printf("%d %s %s\\n", (int64)retval, probe, func); }',
        { ax: -5n & ((1n << 64n) - 1n) },
        'kretprobe:vfs_read',
      ),
    ).toBe('-5 kretprobe:vfs_read vfs_read\n');
  });

  it('should resolve symbols both ways with ksym() and kaddr()', () => {
    expect(
      hit('kprobe:vfs_read { printf("%s %s %x\\n", ksym(0xffffffff81000105), ksym(0x10), kaddr("ksys_read")); }'),
    ).toBe('ksys_read 0x10 ffffffff81000100\n');
  });

  it('should unwind kstack from the registers, naming frames with a decimal offset', () => {
    // At vfs_read+1 (one past the int3) the return address is at sp: 0x1010 holds 0x800000000000002a, not kernel text.
    expect(hit('kprobe:vfs_read { print(kstack); }', { ip: 0xffffffff81000001n, sp: 0x1018n, bp: 0n })).toBe(
      '\n        vfs_read+1\n\n',
    );
  });

  it('should print time() on virtual time from the epoch', () => {
    expect(hit('kprobe:vfs_read { time("%H:%M:%S\\n"); time(); }')).toBe('00:00:00\n00:00:00\n');
  });

  it('should refuse arg0 outside kprobes and an unknown register', () => {
    expect(() => hit('kretprobe:vfs_read { print(arg0); }')).toThrow(
      "The arg0 builtin can only be used with 'kprobes' probes",
    );
    expect(() => hit('kprobe:vfs_read { print(reg("xyz")); }')).toThrow(
      "'xyz' is not a valid register on this architecture (x86_64)",
    );
  });
});
