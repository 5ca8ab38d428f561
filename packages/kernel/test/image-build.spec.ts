import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const imageDir = join(import.meta.dirname, '..', 'image');
const vmlinux = join(imageDir, 'vmlinux');
const vmlinuxDebug = join(imageDir, 'vmlinux.debug');
const userBin = join(imageDir, 'user', 'bin');
const workloads = ['cat', 'dd', 'fault', 'fork', 'hello', 'mkdir', 'net', 'open', 'spin', 'syscall'];

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed: ${r.error?.message ?? r.stderr}`);
  }
  return r.stdout;
}

function have(cmd: string): boolean {
  return spawnSync(cmd, ['--version'], { encoding: 'utf8' }).status === 0;
}

const hasBinutils = have('nm') && have('readelf') && have('objdump');
const hasGcc = have('gcc') && have('ld') && have('bash');

/** `gcc --version` and `ld --version` first lines, as build.sh records them in TOOLCHAIN. */
function toolchain(): string {
  return `${run('gcc', ['--version']).split('\n')[0]}\n${run('ld', ['--version']).split('\n')[0]}\n`;
}

const sameToolchain = hasGcc && toolchain() === readFileSync(join(imageDir, 'TOOLCHAIN'), 'utf8');

interface Sym {
  readonly address: bigint;
  readonly size: number;
  readonly type: string;
  readonly name: string;
}

/** Every defined symbol of an ELF file, from `nm -S` (a symbol without a size gets 0). */
function symbols(file: string): Sym[] {
  return run('nm', ['-S', '--defined-only', file])
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length === 3 || f.length === 4)
    .map((f) => {
      const [a, s, type, name] = f.length === 4 ? f : [f[0], '0', f[1], f[2]];
      return { address: BigInt(`0x${a}`), size: Number.parseInt(s, 16), type, name };
    });
}

describe('build.sh', () => {
  let outDir = '';

  beforeAll(() => {
    if (!sameToolchain) return;
    outDir = mkdtempSync(join(tmpdir(), 'int3-image-'));
    run('bash', [join(imageDir, 'build.sh'), outDir]);
  }, 120_000);

  afterAll(() => {
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it.skipIf(!sameToolchain)('should rebuild vmlinux byte-identical to the committed image', () => {
    expect(Buffer.compare(readFileSync(join(outDir, 'vmlinux')), readFileSync(vmlinux))).toBe(0);
  });

  it.skipIf(!sameToolchain)('should rebuild vmlinux.debug byte-identical to the committed one', () => {
    expect(Buffer.compare(readFileSync(join(outDir, 'vmlinux.debug')), readFileSync(vmlinuxDebug))).toBe(0);
  });

  it.skipIf(!sameToolchain)('should rebuild every user workload byte-identical to the committed ones', () => {
    expect(readdirSync(join(outDir, 'user', 'bin')).sort()).toEqual(workloads);
    for (const name of workloads) {
      const rebuilt = readFileSync(join(outDir, 'user', 'bin', name));
      expect(Buffer.compare(rebuilt, readFileSync(join(userBin, name))), name).toBe(0);
    }
  });
});

describe.skipIf(!hasBinutils)('vmlinux', () => {
  let syms: Sym[] = [];
  let byName = new Map<string, Sym>();
  let disassembly = '';

  beforeAll(() => {
    syms = symbols(vmlinux);
    byName = new Map(syms.map((s) => [s.name, s]));
    disassembly = run('objdump', ['-d', '--no-show-raw-insn', vmlinux]);
  });

  /** The body of one function in the disassembly. */
  function body(fn: string): string {
    const start = disassembly.indexOf(`<${fn}>:\n`);
    expect(start, fn).toBeGreaterThanOrEqual(0);
    const end = disassembly.indexOf('\n\n', start);
    return disassembly.slice(start, end);
  }

  it('should define every symbol the issue names', () => {
    const required = [
      'entry_SYSCALL_64',
      'do_syscall_64',
      'sys_call_table',
      'sys_read',
      'sys_write',
      'sys_open',
      'sys_openat',
      'sys_close',
      'sys_mkdir',
      'sys_getpid',
      'sys_clone',
      'sys_fork',
      'sys_exit',
      'sys_wait4',
      'sys_nanosleep',
      'hrtimer_nanosleep',
      'do_nanosleep',
      'msleep',
      'schedule_timeout',
      'sys_socket',
      'sys_bind',
      'sys_listen',
      'sys_accept',
      'sys_connect',
      'sys_sendmsg',
      'do_sys_open',
      'do_sys_openat2',
      'vfs_open',
      'vfs_read',
      'vfs_write',
      'ksys_read',
      'ksys_write',
      'vfs_symlink',
      'dput',
      'do_mkdirat',
      'kernel_clone',
      'do_exit',
      'schedule',
      'kmalloc',
      'kfree',
      'printk',
      'copy_from_user',
      'copy_to_user',
      'strncpy_from_user',
      '__blockdev_direct_IO',
      'ip_queue_xmit',
      'tcp_sendmsg',
      'kfree_skb',
      'inet_csk_accept',
      'linux_proc_banner',
      '_stext',
      '_etext',
      '_sdata',
      '_edata',
      'start_kernel',
      'int3_task_create',
      'init_task',
      'kernel_flag',
      '__entry_text_start',
      '__entry_text_end',
      '__start___ex_table',
      '__stop___ex_table',
    ];
    expect(required.filter((name) => !byName.has(name))).toEqual([]);
  });

  it('should make the system call bodies and probe targets global functions', () => {
    for (const name of ['do_sys_open', 'vfs_read', 'kmalloc', 'tcp_sendmsg', 'sys_mkdir', 'schedule']) {
      expect(byName.get(name)?.type, name).toBe('T');
    }
    expect(byName.get('sys_call_table')?.type).toBe('R');
    expect(byName.get('linux_proc_banner')?.type).toBe('R');
  });

  it('should keep two local name_show functions from different files', () => {
    const nameShows = syms.filter((s) => s.name === 'name_show');
    expect(nameShows.map((s) => s.type)).toEqual(['t', 't']);
    expect(nameShows[0].address).not.toBe(nameShows[1].address);
  });

  it('should contain a gcc .isra. or .constprop. clone of a static function', () => {
    expect(syms.some((s) => s.type === 't' && /\.(isra|constprop)\.\d+$/.test(s.name))).toBe(true);
  });

  it('should compile a switch to a jump table', () => {
    expect(disassembly).toMatch(/jmp\s+\*-?0x[0-9a-f]+\(,%r\w+,8\)/);
  });

  it('should dispatch system calls and file operations through function pointers', () => {
    expect(body('do_syscall_64')).toMatch(/call\s+\*-?0x[0-9a-f]+\(,%r\w+,8\)/);
    expect(body('vfs_read')).toMatch(/call\s+\*/);
  });

  it('should keep probe targets out of line in their callers', () => {
    const edges: [string, string][] = [
      ['sys_open', 'do_sys_open'],
      ['do_sys_open', 'do_sys_openat2'],
      ['do_filp_open', 'vfs_open'],
      ['sys_read', 'ksys_read'],
      ['ksys_read', 'vfs_read'],
      ['sys_write', 'ksys_write'],
      ['ksys_write', 'vfs_write'],
      ['sys_nanosleep', 'hrtimer_nanosleep'],
      ['hrtimer_nanosleep', 'do_nanosleep'],
      ['do_nanosleep', 'schedule'],
      ['schedule_timeout', 'schedule'],
      ['do_mkdirat', 'vfs_mkdir'],
      ['do_symlinkat', 'vfs_symlink'],
      ['sys_fork', 'kernel_clone'],
      ['sys_exit', 'do_exit'],
      ['inet_sendmsg', 'tcp_sendmsg'],
      ['tcp_transmit_skb', 'ip_queue_xmit'],
      ['inet_accept', 'inet_csk_accept'],
      ['blkdev_read_iter', '__blockdev_direct_IO'],
      ['getname', 'strncpy_from_user'],
      ['alloc_skb', 'kmalloc'],
      ['sys_sched_yield', 'schedule'],
    ];
    const missing = edges.filter(([caller, callee]) => !body(caller).includes(`<${callee}>`));
    expect(missing).toEqual([]);
  });

  it('should give every PT_LOAD exactly its permissions', () => {
    const loads = run('readelf', ['-lW', vmlinux])
      .split('\n')
      .filter((l) => l.trim().startsWith('LOAD'))
      .map((l) => {
        const f = l.trim().split(/\s+/);
        return { vaddr: BigInt(f[2]), memsz: Number.parseInt(f[5], 16), flags: f.slice(6, -1).join('') };
      });
    expect(loads.map((l) => l.flags)).toEqual(['RE', 'RE', 'R', 'RW']);
    for (const l of loads) expect(l.vaddr % 4096n).toBe(0n);
    expect(loads[0].vaddr).toBe(0xffffffff81000000n);
    expect(loads[1].vaddr).toBe(byName.get('__hostcall_start')?.address);
    expect(loads[1].vaddr + BigInt(loads[1].memsz)).toBe(byName.get('__hostcall_end')?.address);
    expect(run('readelf', ['-lW', vmlinux])).not.toMatch(/NOTE|GNU_STACK/);
  });

  it('should lay out host-call gates as 16-byte function symbols inside the gate pages', () => {
    const start = byName.get('__hostcall_start')?.address ?? 0n;
    const end = byName.get('__hostcall_end')?.address ?? 0n;
    const gates = syms.filter((s) => s.name.startsWith('host_'));
    expect(start % 4096n).toBe(0n);
    expect(end % 4096n).toBe(0n);
    expect(gates.length).toBeGreaterThanOrEqual(10);
    for (const g of gates) {
      expect(g.size, g.name).toBe(16);
      expect(g.address >= start && g.address + 16n <= end, g.name).toBe(true);
    }
  });

  it('should put entry_SYSCALL_64 alone in the entry text', () => {
    const entry = byName.get('entry_SYSCALL_64')?.address;
    expect(entry).toBe(byName.get('__entry_text_start')?.address);
    expect(body('entry_SYSCALL_64')).toMatch(/swapgs[\s\S]*call\s+\S+ <do_syscall_64>[\s\S]*sysretq/);
  });

  it('should point every exception-table entry from a user access to its fixup', () => {
    const dump = run('objdump', ['-s', '-j', '__ex_table', vmlinux]);
    const bytes = Buffer.from(
      dump
        .split('\n')
        .filter((l) => /^ [0-9a-f]{16} /.test(l))
        .map((l) => l.slice(18, 53).replace(/\s/g, ''))
        .join(''),
      'hex',
    );
    const start = byName.get('__start___ex_table')?.address ?? 0n;
    const stop = byName.get('__stop___ex_table')?.address ?? 0n;
    expect(BigInt(bytes.length)).toBe(stop - start);
    const owners = new Set<string>();
    for (let off = 0; off < bytes.length; off += 16) {
      const insn = bytes.readBigUInt64LE(off);
      const fixup = bytes.readBigUInt64LE(off + 8);
      const owner = syms.find((s) => s.address <= insn && insn < s.address + BigInt(s.size));
      expect(owner, `insn ${insn.toString(16)}`).toBeDefined();
      expect(fixup > insn && fixup < (owner?.address ?? 0n) + BigInt(owner?.size ?? 0)).toBe(true);
      owners.add(owner?.name ?? '');
    }
    expect([...owners].sort()).toEqual(['__strncpy_from_user', 'copy_user_generic']);
  });

  it('should format /proc/version from a printf-style linux_proc_banner', () => {
    const rodata = run('objdump', ['-s', '-j', '.rodata', vmlinux]);
    const text = rodata
      .split('\n')
      .filter((l) => /^ [0-9a-f]{16} /.test(l))
      .map((l) => l.slice(55))
      .join('');
    expect(text).toContain('%s version %s');
  });
});

describe.skipIf(!hasBinutils)('vmlinux.debug', () => {
  /** The program headers of an ELF file and the bytes each PT_LOAD brings from the file. */
  function loads(file: string) {
    const bytes = readFileSync(file);
    return run('readelf', ['-lW', file])
      .split('\n')
      .filter((l) => l.trim().startsWith('LOAD'))
      .map((l) => {
        const f = l.trim().split(/\s+/);
        const offset = Number.parseInt(f[1], 16);
        const filesz = Number.parseInt(f[4], 16);
        return { header: f.join(' '), bytes: bytes.subarray(offset, offset + filesz) };
      });
  }

  it("should load exactly vmlinux's bytes at exactly vmlinux's addresses", () => {
    const ours = loads(vmlinuxDebug);
    const theirs = loads(vmlinux);
    expect(ours.map((l) => l.header)).toEqual(theirs.map((l) => l.header));
    for (const [i, l] of ours.entries()) expect(Buffer.compare(l.bytes, theirs[i].bytes), l.header).toBe(0);
    expect(symbols(vmlinuxDebug)).toEqual(symbols(vmlinux));
  });

  it('should carry the DWARF of every kernel source, with paths relative to the image directory', () => {
    const sections = run('readelf', ['-SW', vmlinuxDebug]);
    for (const name of ['.debug_info', '.debug_line', '.debug_frame']) expect(sections).toContain(name);
    const units = run('readelf', ['--debug-dump=info', vmlinuxDebug]);
    expect(units).toMatch(/DW_AT_name\s*:.*fs\/open\.c/);
    expect(units).not.toContain(imageDir);
  });
});

describe.skipIf(!hasGcc || process.platform !== 'linux' || process.arch !== 'x64')('guest kernel C', () => {
  it('should pass the native smoke test (image/test/smoke.sh: syscalls driven on the host CPU)', () => {
    const r = spawnSync('bash', [join(imageDir, 'test', 'smoke.sh')], { encoding: 'utf8' });
    expect(r.stdout).toContain('smoke: all passed');
    expect(r.stdout.split('\n').filter((l) => l.startsWith('FAIL'))).toEqual([]);
    expect(r.status).toBe(0);
  }, 120_000);
});

describe.skipIf(!hasBinutils)('user workloads', () => {
  it.each(workloads)('should build %s as a static ET_EXEC at 0x400000 with no undefined symbols', (name) => {
    const file = join(userBin, name);
    const header = run('readelf', ['-hlW', file]);
    expect(header).toMatch(/Type:\s+EXEC/);
    expect(header).toMatch(/LOAD\s+0x0+\s+0x0+400000/);
    expect(header).not.toMatch(/INTERP|DYNAMIC/);
    expect(run('nm', ['--undefined-only', file])).toBe('');
    expect(run('nm', [file])).toMatch(/ T _start$/m);
  });
});
