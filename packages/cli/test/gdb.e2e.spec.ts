// The gdb stub, driven by the real gdb (batch mode) on a recorded `cat /etc/motd`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../src/temp-dir.fixture.js';
import { gdbSession, section, skipGdb } from './gdb-session.js';
import { int3, ok, REPO_ROOT, startInt3 } from './int3.js';

const dir = tempDir('int3-gdb-');
const log = join(dir, 'cat.int3log');
ok(['record', '-o', log, '--run', 'cat /etc/motd']);

const mark = (name: string) => `echo @@${name}\\n`;

/** gdb's `info registers` lines of the general registers, rip and eflags. */
const REGS =
  'info registers rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip eflags cs ss fs_base gs_base';

const SESSION = [
  mark('start'),
  'x/i $pc',
  'break do_sys_open',
  'continue',
  mark('bt'),
  'bt',
  mark('filename'),
  'x/s $rsi',
  mark('before'),
  REGS,
  mark('/'),
  'stepi',
  'stepi',
  'stepi',
  mark('after'),
  REGS,
  mark('/'),
  'reverse-stepi',
  'reverse-stepi',
  'reverse-stepi',
  mark('back'),
  REGS,
  mark('/'),
  'delete',
  'watch *(long *)&kmalloc_stats',
  'continue',
  mark('watch'),
  'reverse-stepi',
  'x/i $pc',
  'print *(long *)&kmalloc_stats',
  mark('/'),
  'continue',
  'reverse-continue',
  mark('reverse-watch'),
  'x/i $pc',
  mark('/'),
  'delete',
  'break vfs_read',
  'continue',
  mark('read1'),
  'monitor info',
  mark('/'),
  'continue',
  mark('read2'),
  'monitor info',
  mark('/'),
  'reverse-continue',
  mark('read1again'),
  'monitor info',
  mark('/'),
  'delete',
  mark('end'),
  'continue',
  mark('begin'),
  'reverse-continue',
  'x/i $pc',
  'detach',
];

describe.skipIf(skipGdb)('int3 replay --gdb, driven by gdb', () => {
  it('should debug the recorded run forwards and backwards, the same way every time', async () => {
    const first = await gdbSession(dir, log, SESSION);
    const t = first.gdb;
    expect(first.status).toBe(0);
    // Stopped before the first instruction of cat: its entry point.
    expect(section(t, 'start')).toMatch(/=> 0x4010ac:\s+xor\s+%ebp,%ebp/);
    expect(t).toMatch(/Thread 1 hit Breakpoint 1, 0xffffffff81001c80 in do_sys_open \(\)/);
    const bt = section(t, 'bt')
      .split('\n')
      .map((l) => /in (\w+) \(/.exec(l)?.[1])
      .filter((f) => f !== undefined);
    expect(bt.slice(0, 4)).toEqual(['do_sys_open', 'sys_open', 'do_syscall_64', 'entry_SYSCALL_64']);
    expect(section(t, 'filename')).toMatch(/:\s+"\/etc\/motd"\n/);
    // Three instructions forwards change registers; three backwards restore every one exactly.
    expect(section(t, 'after')).not.toBe(section(t, 'before'));
    expect(section(t, 'back')).toBe(section(t, 'before'));
    expect(section(t, 'before')).toMatch(/rip\s+0xffffffff81001c80/);
    // The second read's reverse-continue lands on the first: same instruction count, same time.
    const retired = (s: string) => /instructions retired: (\d+)/.exec(section(t, s))?.[1];
    expect(retired('read1')).toBeDefined();
    expect(Number(retired('read2'))).toBeGreaterThan(Number(retired('read1')));
    expect(section(t, 'read1again')).toBe(section(t, 'read1'));
    // The watchpoint stops after the store that changed the counter; one step back is that store.
    const watch = section(t, 'watch');
    const old = /Old value = (\d+)/.exec(t)?.[1];
    expect(/New value = (\d+)/.exec(t)?.[1]).toBe(String(Number(old) + 1));
    expect(watch).toMatch(
      /=> 0x[0-9a-f]+ <kmalloc\+\d+>:\s+addq\s+\$0x1,0x[0-9a-f]+\(%rip\)\s+# 0xffffffff81008980 <kmalloc_stats>/,
    );
    expect(watch).toContain(`$1 = ${old}`);
    // In reverse, gdb stops at the store itself, the value back to what it was before it.
    expect(section(t, 'reverse-watch')).toMatch(/<kmalloc\+\d+>:\s+addq\s+\$0x1,.*<kmalloc_stats>/);
    expect(section(t, 'end')).toContain('int3: the recorded run ends here');
    expect(section(t, 'end')).toContain('No more reverse-execution history.');
    expect(section(t, 'begin')).toContain('No more reverse-execution history.');
    expect(section(t, 'begin')).toMatch(/=> 0x4010ac:\s+xor\s+%ebp,%ebp/);
    expect(t).toContain('[Inferior 1 (Remote target) detached]');
    const again = await gdbSession(dir, log, SESSION);
    expect(again.gdb).toBe(t);
  });

  it('should debug at the source level with vmlinux.debug: list, info locals, bt with arguments, finish', async () => {
    const r = await gdbSession(
      dir,
      log,
      [
        'break do_sys_open',
        'continue',
        mark('bt'),
        'bt 3',
        mark('list'),
        'list do_sys_open',
        mark('locals'),
        'info locals',
        mark('finish'),
        'finish',
        mark('reverse-finish'),
        'reverse-finish',
        mark('/'),
        'detach',
      ],
      { debugInfo: true },
    );
    expect(r.gdb).toContain(
      'Thread 1 hit Breakpoint 1, do_sys_open (dfd=dfd@entry=-100, filename=0x7fffffffeff6 "/etc/motd", flags=0, mode=0) at fs/open.c:69',
    );
    expect(section(r.gdb, 'bt')).toMatch(
      /^#0 {2}do_sys_open \(dfd=dfd@entry=-100, filename=0x7fffffffeff6 "\/etc\/motd", flags=0, mode=0\) at fs\/open\.c:69\n#1 {2}0x[0-9a-f]+ in sys_open \(.*\) at fs\/open\.c:\d+\n#2 {2}0x[0-9a-f]+ in do_syscall_64 \(regs=0x[0-9a-f]+, nr=2\) at arch\/x86\/entry\/syscall_64\.c:\d+\n/,
    );
    expect(section(r.gdb, 'list')).toMatch(
      /^67\s+noinline long do_sys_open\(int dfd, const char __user \*filename, int flags, umode_t mode\)$/m,
    );
    expect(section(r.gdb, 'locals')).toBe('how = {flags = 0, mode = 0, resolve = 0}\n');
    // do_sys_open returns the file descriptor: 3 after stdin, stdout and stderr.
    expect(section(r.gdb, 'finish')).toMatch(
      /^0x[0-9a-f]+ in sys_open \(.*\) at fs\/open\.c:\d+\n[\s\S]*Value returned is \$1 = 3\n$/,
    );
    expect(section(r.gdb, 'reverse-finish')).toMatch(/do_sys_open \(dfd=dfd@entry=-100/);
  });

  it('should stop on read and access watchpoints (rwatch, awatch), forwards and in reverse', async () => {
    const r = await gdbSession(
      dir,
      log,
      [
        'rwatch kmalloc_stats.allocs',
        'continue',
        mark('read'),
        'x/i $pc',
        'continue',
        mark('reverse'),
        'reverse-continue',
        'x/i $pc',
        'delete',
        'awatch kmalloc_stats.bytes',
        mark('access'),
        'continue',
        mark('/'),
        'detach',
      ],
      { debugInfo: true },
    );
    // After the read (the addq that counts the allocation), then, backwards, at that addq itself.
    expect(r.gdb).toMatch(/Thread 1 hit Hardware read watchpoint 1: kmalloc_stats\.allocs\n\nValue = 53\n/);
    expect(section(r.gdb, 'read')).toMatch(/=> 0xffffffff81004126 <kmalloc\+38>:/);
    expect(section(r.gdb, 'reverse')).toMatch(
      /Value = 53\n[\s\S]*=> 0xffffffff8100411e <kmalloc\+30>:\s+addq\s+\$0x1,.*<kmalloc_stats>/,
    );
    expect(section(r.gdb, 'access')).toMatch(
      /hit Hardware access \(read\/write\) watchpoint 2: kmalloc_stats\.bytes\n\n(Value = \d+|Old value = \d+\nNew value = \d+)\n/,
    );
  });

  it("should give gdb a module's symbols and sources: module build -g, then monitor lsmod's add-symbol-file", async () => {
    const ko = join(dir, 'hello.ko');
    ok(['module', 'build', '-g', join(REPO_ROOT, 'packages/kernel/image/modules/hello.c'), '-o', ko]);
    const modLog = join(dir, 'hello.int3log');
    ok(['record', '-o', modLog, '--insmod', ko, '--run', 'cat /etc/motd']);
    const listed = await gdbSession(dir, modLog, ['monitor lsmod', 'detach']);
    const line = /^ {2}(add-symbol-file hello\.ko 0xffffffff[0-9a-f]+( -s \S+ 0x[0-9a-f]+)+)$/m.exec(listed.gdb)?.[1];
    expect(line, listed.gdb).toBeDefined();
    const r = await gdbSession(dir, modLog, [line!, 'info line hello_greet', 'print hello_ops', 'detach'], {
      debugInfo: true,
    });
    expect(r.gdb).toMatch(
      /Line \d+ of "\/[^"]*\/modules\/hello\.c" starts at address 0xffffffffa[0-9a-f]+ <hello_greet>/,
    );
    expect(r.gdb).toMatch(
      /\$1 = \{greet = 0x[0-9a-f]+ <hello_greet>, who = 0x[0-9a-f]+ <hello_who> "int3", ring = 0x[0-9a-f]+ <hello_ring>\}/,
    );
  });

  it("should show the registers after monitor event with gdb's hookpost-monitor flushing its register cache", async () => {
    const r = await gdbSession(dir, log, [
      'break vfs_read',
      'continue',
      'define hookpost-monitor',
      'maint flush register-cache',
      'end',
      'monitor event 2',
      mark('hooked'),
      'info registers rip',
      mark('flushed'),
      'maint flush register-cache',
      'info registers rip',
      mark('/'),
      'detach',
    ]);
    // gdb refetches nothing after a monitor command (rr and pyOCD say the same): the hook does it.
    expect(section(r.gdb, 'hooked')).toBe(section(r.gdb, 'flushed'));
    expect(section(r.gdb, 'hooked')).toMatch(/^rip\s+0x4010ac\s/);
    expect(r.status).toBe(0);
  });

  it("should stop a watch where gdb's own software watchpoint stops: at the store that changed the value", async () => {
    const script = (software: boolean) => [
      ...(software ? ['set can-use-hw-watchpoints 0'] : []),
      'watch *(long *)&kmalloc_stats',
      'continue',
      mark('hit'),
      'x/i $pc',
      'print *(long *)&kmalloc_stats',
      mark('/'),
      'detach',
    ];
    const hardware = await gdbSession(dir, log, script(false));
    // gdb steps the run itself and compares the value after each instruction.
    const software = await gdbSession(dir, log, script(true));
    const change = (t: string) =>
      /hit (Hardware w|W)atchpoint 1: \*\(long \*\)&kmalloc_stats\n\n(Old value = \d+\nNew value = \d+)\n/.exec(t);
    expect(change(hardware.gdb)?.[1]).toBe('Hardware w');
    expect(change(software.gdb)?.[1]).toBe('W');
    expect(change(software.gdb)?.[2]).toBe(change(hardware.gdb)?.[2]);
    expect(section(software.gdb, 'hit')).toBe(section(hardware.gdb, 'hit'));
    expect(section(hardware.gdb, 'hit')).toMatch(/=> 0xffffffff81004126 <kmalloc\+38>:/);
  });

  it('should refuse register and memory writes in a replay, and keep going', async () => {
    const r = await gdbSession(
      dir,
      log,
      ['break do_sys_open', 'continue', 'set $rax = 1', mark('mem'), 'set {char}$rsi = 65', 'x/s $rsi', 'kill'],
      { each: true },
    );
    expect(r.gdb).toMatch(/Could not write register|Couldn't write register|Remote failure reply: E01/i);
    expect(section(r.gdb, 'mem')).toMatch(/Cannot access memory|Remote failure reply|Could not write/);
    expect(section(r.gdb, 'mem')).toMatch(/"\/etc\/motd"/);
    expect(r.gdb).toContain('[Inferior 1 (Remote target) killed]');
    expect(r.status).toBe(0);
  });
});

describe.skipIf(skipGdb)('int3 replay --gdb, on a run recorded with probes', () => {
  it("should show the probed function's own bytes, and go back to before the probe definitions and to the start", async () => {
    const probed = join(dir, 'probed.int3log');
    ok(['record', '-o', probed, '-e', 'p:open do_sys_open', '--run', 'cat /etc/motd']);
    const r = await gdbSession(dir, probed, [
      'break do_sys_open',
      'continue',
      mark('bytes'),
      'x/4xb do_sys_open',
      'monitor kprobes',
      mark('reach'),
      'monitor event 1',
      mark('/'),
      'stepi',
      'reverse-stepi',
      mark('back'),
      'info registers rip',
      mark('begin'),
      'reverse-continue',
      'x/i $pc',
      mark('/'),
      'detach',
    ]);
    const bytes = section(r.gdb, 'bytes');
    // The vmlinux file's bytes, not the int3 (0xcc) or jump (0xe9) the armed probe put there.
    const image = readFileSync(join(REPO_ROOT, 'packages/kernel/image/vmlinux'));
    const fileOffset = 0x1000 + Number(0xffffffff81001c80n - 0xffffffff81000000n);
    const own = [...image.subarray(fileOffset, fileOffset + 4)].map((b) => `0x${b.toString(16).padStart(2, '0')}`);
    expect(bytes).toMatch(new RegExp(`<do_sys_open>:\\s+${own.join('\\s+')}\n`));
    expect(bytes).toMatch(/ffffffff81001c80\s+k\s+do_sys_open\+0x0/);
    // Event 1 (the probe definition) is reachable: tracefs and kprobes are in the snapshots, so the
    // re-run from the origin defines the probe again; the machine goes to the first instruction.
    expect(section(r.gdb, 'reach')).toBe('at the first instruction after event 1: input:tracefs-write\n');
    expect(section(r.gdb, 'back')).toMatch(/rip\s+0x4010ac\s/);
    expect(section(r.gdb, 'begin')).toContain('No more reverse-execution history.');
    expect(section(r.gdb, 'begin')).toMatch(/=> 0x4010ac:/);
    expect(r.status).toBe(0);
  });
});

describe.skipIf(skipGdb)('int3 record --gdb, a live run under gdb', () => {
  it('should journal every resume and write, so the log replays, and go backwards in the history so far', async () => {
    const live = join(dir, 'live.int3log');
    const r = await gdbSession(
      dir,
      live,
      [
        'break vfs_read',
        'continue',
        mark('regs'),
        'info registers rip rdx',
        mark('/'),
        // Back one instruction into the run gdb's continue made (inside its journaled input), and forward.
        'reverse-stepi',
        mark('prev'),
        'x/i $pc',
        'stepi',
        mark('again'),
        'info registers rip rdx',
        mark('/'),
        'stepi',
        'stepi',
        'reverse-stepi',
        'reverse-stepi',
        mark('back'),
        'info registers rip rdx',
        mark('past'),
        'set $rdx = 7',
        mark('write'),
        'continue',
        'set $rdx = 1',
        'info registers rdx',
        'delete',
        'detach',
      ],
      { int3: ['record', '-o', live, '--run', 'cat /etc/motd', '--gdb', '0'], each: true },
    );
    expect(r.status).toBe(0);
    expect(r.stub).toMatch(/gdb stub on 127\.0\.0\.1:\d+, stopped before the first instruction of cat/);
    expect(section(r.gdb, 'regs')).toMatch(
      /rip\s+0xffffffff81002324\s+0xffffffff81002324 <vfs_read\+4>\nrdx\s+0x200\s+512\n/,
    );
    expect(section(r.gdb, 'prev')).toMatch(/=> 0xffffffff8100232[0-3] <vfs_read\+[0-3]>:/);
    expect(section(r.gdb, 'again')).toBe(section(r.gdb, 'regs'));
    expect(section(r.gdb, 'back')).toBe(section(r.gdb, 'regs'));
    // Back in the history a write would change what comes after: refused.
    expect(section(r.gdb, 'past')).toMatch(/Could not write register "rdx"; remote failure reply 'E01'/);
    // At the end of the history (the second read), the write is journaled: cat reads one byte.
    expect(section(r.gdb, 'write')).toMatch(/rdx\s+0x1\s+1\n/);
    const log = readFileSync(live, 'utf8');
    expect(log).toContain('"type":"input:gdb-run"');
    expect(log).toMatch(/"type":"input:gdb-write","cpu":0,"register":3,"value":\{"\$big":"1"\}/);
    // The log replays, every state hash checked, with gdb's resumes and write in it.
    const replayed = int3(['replay', live]);
    expect(replayed.stderr).toBe('');
    expect(replayed.status).toBe(0);
  });
});

describe.skipIf(skipGdb)('int3 record --gdb, a live run with probes', () => {
  it('should go backwards through the probes and print each hit once: the trace of the run without gdb', async () => {
    const live = join(dir, 'live-probed.int3log');
    const probes = ['-e', 'p:open do_sys_open', '-e', 'r:readret ksys_read ret=$retval'];
    const r = await gdbSession(
      dir,
      live,
      [
        'break vfs_read',
        'continue',
        mark('read1'),
        'monitor info',
        mark('/'),
        'continue',
        mark('read2'),
        'monitor info',
        mark('trace2'),
        'monitor trace',
        mark('/'),
        'reverse-continue',
        mark('read1again'),
        'monitor info',
        mark('trace1'),
        'monitor trace',
        mark('/'),
        'reverse-stepi',
        'continue',
        'continue',
        mark('read2again'),
        'monitor info',
        mark('/'),
        'delete',
        mark('begin'),
        'reverse-continue',
        mark('/'),
        'detach',
      ],
      { int3: ['record', '-o', live, ...probes, '--run', 'cat /etc/motd', '--gdb', '0'], each: true },
    );
    expect(r.status).toBe(0);
    // Backwards: the first read's position again (the log has grown since), its trace so far (the
    // open, no read returned yet).
    const at = (name: string) => section(r.gdb, name).replace(/^log: after event (\d+) of \d+/m, 'log: after event $1');
    expect(at('read1again')).toBe(at('read1'));
    expect(at('read1')).toMatch(/instructions retired: \d+\ntasks:\n {2}1 cat running on cpu0\n/);
    expect(section(r.gdb, 'read2again')).toBe(section(r.gdb, 'read2'));
    expect(section(r.gdb, 'trace1')).toMatch(/open: \(do_sys_open\+0x0\/0x40\)\n$/);
    expect(section(r.gdb, 'trace2')).toMatch(/open: .*\n.*readret: \(sys_read\+0x9\/0x10 <- ksys_read\) ret=0x88\n$/);
    expect(section(r.gdb, 'begin')).toContain('No more reverse-execution history.');
    expect(r.gdb).not.toContain('out of reach');
    // The trace printed: each hit once, as the run without gdb prints it.
    const plain = ok(['trace', ...probes, '--run', 'cat /etc/motd']);
    expect(plain.split('\n').length).toBeGreaterThan(3);
    expect(r.stubOut).toBe(plain);
    // Its continues ran at full speed (breakpoints only), re-executed one instruction at a time when
    // it went back: the log replays, every state hash checked.
    expect(readFileSync(live, 'utf8')).toMatch(/"type":"input:gdb-run",[^\n]*"untilNs":\d+/);
    const replayed = int3(['replay', live]);
    expect(replayed.stderr).toBe('');
    expect(replayed.status).toBe(0);
  });
});

describe.skipIf(skipGdb)('int3 record --gdb, read and access watchpoints in a live run', () => {
  it('should stop on rwatch and awatch, forwards and in reverse, journaled so the log replays', async () => {
    const live = join(dir, 'live-rwatch.int3log');
    const r = await gdbSession(
      dir,
      live,
      [
        'rwatch kmalloc_stats.allocs',
        'continue',
        mark('read'),
        'x/i $pc',
        'continue',
        mark('reverse'),
        'reverse-continue',
        'x/i $pc',
        mark('/'),
        'delete',
        'awatch kmalloc_stats.bytes',
        mark('access'),
        'continue',
        mark('/'),
        'delete',
        'detach',
      ],
      { int3: ['record', '-o', live, '--run', 'cat /etc/motd', '--gdb', '0'], each: true, debugInfo: true },
    );
    expect(r.status).toBe(0);
    // As in a replay of the same run: after the read (the addq that counts the allocation), then,
    // backwards, at that addq itself.
    expect(r.gdb).toMatch(/Thread 1 hit Hardware read watchpoint 1: kmalloc_stats\.allocs\n\nValue = 53\n/);
    expect(section(r.gdb, 'read')).toMatch(/=> 0xffffffff81004126 <kmalloc\+38>:/);
    expect(section(r.gdb, 'reverse')).toMatch(
      /Value = 53\n[\s\S]*=> 0xffffffff8100411e <kmalloc\+30>:\s+addq\s+\$0x1,.*<kmalloc_stats>/,
    );
    expect(section(r.gdb, 'access')).toMatch(
      /hit Hardware access \(read\/write\) watchpoint 2: kmalloc_stats\.bytes\n\n(Value = \d+|Old value = \d+\nNew value = \d+)\n/,
    );
    const log = readFileSync(live, 'utf8');
    expect(log).toMatch(/"type":"input:gdb-run",[^\n]*"accesses":\["r:[0-9a-f]+:8"\]/);
    expect(log).toMatch(/"accesses":\["a:[0-9a-f]+:8"\]/);
    // The log replays, every state hash checked, the watched resumes stopping where they did.
    const replayed = int3(['replay', live]);
    expect(replayed.stderr).toBe('');
    expect(replayed.status).toBe(0);
  });
});

describe('int3 replay --gdb, mistakes', () => {
  it('should end on Ctrl-C in its own terminal, in one line, exit 130', async () => {
    const stub = startInt3(['replay', log, '--gdb', '0']);
    while (!/gdb stub on/.test(stub.stderr) && stub.child.exitCode === null)
      await new Promise((r) => setTimeout(r, 20));
    stub.child.kill('SIGINT');
    const r = await stub.done;
    expect(r.status).toBe(130);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('int3: interrupted'))).toEqual([
      'int3: interrupted (Ctrl-C) while serving gdb',
    ]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('should say so in one line when the port is in use', async () => {
    const { createServer } = await import('node:net');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const r = int3(['replay', log, '--gdb', String(port)]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^int3: cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use`));
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      server.close();
    }
  });

  it.each([
    ['abc', /^int3: bad --gdb 'abc': expected \[HOST:\]PORT/],
    ['99999', /^int3: bad --gdb '99999'/],
    ['1:2:3', /^int3: bad --gdb '1:2:3'/],
  ])('should refuse --gdb %s in one line', (arg, message) => {
    const r = int3(['replay', log, '--gdb', arg]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
