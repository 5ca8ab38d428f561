// End-to-end tests of the CLI's session-2 features: plugins, the chrome format, replay --at, Ctrl-C,
// call -e, clean pipes and usage errors. They spawn the built binary (dist/).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { int3, lines, ok, REPO_ROOT, startInt3 } from './int3.js';

const dir = mkdtempSync(join(tmpdir(), 'int3-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPEN = 'p:open do_sys_open dfd=%di filename=+0(%si):string';
const ESC = '\x1b';

describe('int3 --plugin', () => {
  it('should load examples/plugin-syscount by path and print its per-task counts after the trace', () => {
    const r = int3(
      ['trace', '-e', OPEN, '--run', 'cat /etc/motd', '--plugin', './examples/plugin-syscount'],
      undefined,
      {
        cwd: REPO_ROOT,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toMatch(/ open: \(do_sys_open\+0x0\/0x[0-9a-f]+\) dfd=0xffffff9c filename="\/etc\/motd"$/);
    expect(out[1]).toBe('# syscount');
    expect(out[2]).toMatch(/^PID +COMM +SYSCALL +COUNT$/);
    expect(out).toContainEqual(expect.stringMatching(/^1 +cat +open +1$/));
    expect(out).toContainEqual(expect.stringMatching(/^1 +cat +read +\d+$/));
  });

  it('should name a missing or bad plugin, without a stack trace, and exit 1', () => {
    const missing = int3(['trace', '--plugin', './no-such-plugin'], undefined, { cwd: dir });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(
      /^int3: cannot load --plugin \.\/no-such-plugin: plugin '\.\/no-such-plugin': no such file/,
    );
    const bad = join(dir, 'bad-plugin.mjs');
    writeFileSync(bad, 'export const nothing = 1;\n');
    const r = int3(['trace', '--plugin', bad]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^int3: cannot load --plugin .*bad-plugin\.mjs: .*manifest/);
    for (const e of [missing, r]) expect(e.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('int3 trace --format chrome', () => {
  it('should print entry/return pairs as complete (X) events on the CPU track of the task, with the fetched args', () => {
    const doc = JSON.parse(
      ok([
        'trace',
        '-e',
        OPEN,
        '-e',
        'r:openret do_sys_open ret=$retval',
        '--run',
        'cat /etc/motd',
        '--run',
        'cat /etc/motd',
        '--format',
        'chrome',
      ]),
    );
    type Ev = {
      name: string;
      ph: string;
      ts?: number;
      dur?: number;
      pid: number;
      tid: number;
      args: Record<string, unknown>;
    };
    const events = doc.traceEvents as Ev[];
    const hits = events.filter((e) => e.ph !== 'M');
    // The two tasks run on the two CPUs; each task's pair is one X event on a CPU track (pid = CPU, tid = task).
    for (const tid of [1, 2]) {
      const pair = hits.filter((e) => e.tid === tid);
      expect(pair.map((e) => [e.ph, e.name])).toEqual([['X', 'do_sys_open']]);
      expect([0, 1]).toContain(pair[0].pid);
      // The entry's and the return's args, the return's event name last.
      expect(pair[0].args).toMatchObject({ filename: '/etc/motd', ret: 3, event: 'kprobes/openret' });
      expect(pair[0].dur).toBeGreaterThan(0);
    }
    expect(hits).toHaveLength(2);
    const names = events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.args.name);
    expect([...names].sort()).toEqual(['cat-1', 'cat-2']);
  });
});

describe('int3 replay --at', () => {
  /** Records `cat /etc/motd` with OPEN, returns the log and the event numbers of its first #BP and #DB. */
  function recordTraps(name: string, ...extra: string[]) {
    const log = join(dir, name);
    ok(['record', '-o', log, '-e', OPEN, '--run', 'cat /etc/motd', ...extra]);
    // Event N is line N + 2 of the file (after the header line; event 0 is the config).
    const entries = readFileSync(log, 'utf8').split('\n');
    const bp = entries.findIndex((l) => l.includes('"name":"#BP"')) - 1;
    const dbLine = entries.findIndex((l, i) => i > bp + 1 && l.includes('"name":"#DB"'));
    return { log, bp, db: dbLine < 0 ? undefined : dbLine - 1 };
  }

  it('should stop at event N and print its registers, task and the code at rip', () => {
    // --no-optimize: the first hit is the 2.6.12 path, #BP then the copy single-stepped in its slot.
    const { log, bp, db } = recordTraps('at.int3log', '--no-optimize');
    expect(bp).toBeGreaterThan(0);
    const out = lines(ok(['replay', log, '--at', String(bp)]));
    expect(out[0]).toMatch(new RegExp(`^event ${bp} of \\d+: trap:raised cpu=0 vector=3 name="#BP"`));
    expect(out[1]).toMatch(/^CPU 0: task cat \(pid 1\), CPL 0 \(kernel mode\)/);
    expect(out[2]).toMatch(/^rax [0-9a-f]{16} {2}rbx [0-9a-f]{16} {2}rcx [0-9a-f]{16} {2}rdx [0-9a-f]{16}$/);
    expect(out[3]).toMatch(/rdi 00000000ffffff9c/);
    expect(out).toContainEqual(expect.stringMatching(/^rip [0-9a-f]{16} <kprobe_insn_page\+0x[0-9a-f]+\/0x1000>$/));
    expect(out).toContainEqual(expect.stringMatching(/^rflags 0x[0-9a-f]+ \[ (?:[A-Z]+ )*TF (?:[A-Z]+ )*\]$/));
    expect(out).toContainEqual('cs 0x10  ss 0x18');
    // Stopped just after the #BP: rip is on the slot's copy of do_sys_open's first instruction.
    expect(out.filter((l) => l.startsWith('=>'))).toEqual([
      expect.stringMatching(/^=>[0-9a-f]+: {2}55 +push %rbp {2}<- copy of the instruction at do_sys_open\+0x0\//),
    ]);
    // After the single-step's #DB: back in do_sys_open after the probed instruction, its probe marked.
    expect(db).toBeGreaterThan(bp);
    const next = lines(ok(['replay', log, '--at', String(db!)]));
    expect(next.filter((l) => l.startsWith('=>'))).toEqual([expect.stringMatching(/^=>[0-9a-f]+: .*mov %edx,%eax$/)]);
    expect(next).toContainEqual(expect.stringMatching(/push %rbp {2}<- kprobe \(armed: int3 in place/));
  });

  it('should show an int3 hit on a probe being optimized continuing in the detour buffer, without a #DB', () => {
    // By default the probe is queued for jump optimization when enabled; its int3 sends the CPU to the
    // detour buffer's copy of the region (setup_detour_execution), so no single-step follows.
    const { log, bp, db } = recordTraps('at-opt.int3log');
    expect(bp).toBeGreaterThan(0);
    expect(db).toBeUndefined();
    const out = lines(ok(['replay', log, '--at', String(bp)]));
    expect(out).toContainEqual(expect.stringMatching(/^rip [0-9a-f]{16} <kprobe_optinsn_page\+0x[0-9a-f]+\/0x1000>$/));
    expect(out).toContainEqual(expect.stringMatching(/^rflags 0x[0-9a-f]+ \[ (?:(?!TF)[A-Z]+ )*\]$/));
    // The buffer, named: the callback's gate, the copied region (rip on its first copy), the jmp back.
    const code = out.slice(out.indexOf('code:') + 1);
    expect(code[0]).toMatch(
      /^ {2}[0-9a-f]+: {2}cc +\(gate\) {2}<- the optimized callback of the probe at do_sys_open\+0x0\//,
    );
    expect(code[1]).toMatch(
      /^=>[0-9a-f]+: {2}55 +push %rbp {2}<- copy of the \d+ bytes at do_sys_open\+0x0\/0x[0-9a-f]+, run out of line$/,
    );
    expect(code.at(-1)).toMatch(/ jmp 0xffffffff81[0-9a-f]+ {2}<- back after the region$/);
  });

  it('should refuse an event out of range with exit 2, naming the range', () => {
    const log = join(dir, 'range.int3log');
    ok(['record', '-o', log, '--run', 'hello']);
    const count = readFileSync(log, 'utf8').trimEnd().split('\n').length - 1;
    const r = int3(['replay', log, '--at', String(count)]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^int3: bad --at '${count}': .*range\\.int3log has events 0 to ${count - 1}`));
  });
});

describe('Ctrl-C', () => {
  it('should stop a long run, print what was traced until then, write a valid log and exit 130', async () => {
    const log = join(dir, 'sigint.int3log');
    const p = startInt3(['record', '-o', log, '-e', OPEN, '--run', 'cat /etc/motd', '--run', 'spin 2000000000']);
    // Sent once the process had time to start; if the run is not under way yet, it stops after its
    // first slice, which holds cat's open.
    setTimeout(() => p.child.kill('SIGINT'), 2500);
    const r = await p.done;
    expect(r.signal).toBeNull();
    expect(r.status).toBe(130);
    expect(lines(r.stdout)).toEqual([expect.stringMatching(/ open: .* filename="\/etc\/motd"$/)]);
    expect(r.stderr).toMatch(/^int3: interrupted \(Ctrl-C\) at \d+\.\d{6} s of virtual time/);
    const replayed = int3(['replay', log]);
    expect(replayed.status).toBe(0);
    expect(replayed.stdout).toBe(r.stdout);
    expect(replayed.stderr).toBe('int3: the recorded run was interrupted by SIGINT before its workloads exited\n');
    expect(int3(['replay', '--quiet', log]).stderr).toBe('');
  });
});

describe('int3 tracefs and Ctrl-C', () => {
  it('should stop a script at a long run on Ctrl-C, keep what was printed, skip the rest, exit 130', async () => {
    const script = join(dir, 'sigint.sh');
    writeFileSync(script, ['run cat /etc/motd', 'run spin 2000000000', 'cat kprobe_profile', ''].join('\n'));
    const p = startInt3(['tracefs', '--script', script]);
    setTimeout(() => p.child.kill('SIGINT'), 2500);
    const r = await p.done;
    expect(r.signal).toBeNull();
    expect(r.status).toBe(130);
    // What cat printed, and nothing after the interrupted run (the script stopped there, as sh does).
    expect(r.stdout).toBe(ok(['tracefs'], 'run cat /etc/motd\n'));
    expect(r.stdout).not.toBe('');
    expect(r.stderr).toMatch(/^run: interrupted at \d+\.\d{6} s of virtual time\n$/);
  });
});

describe('int3 call -e', () => {
  it('should print the trace lines of the call before return:', () => {
    const out = lines(ok(['call', '-e', 'p:len strlen s=+0(%di):string', 'strlen', 'str:hello']));
    expect(out).toEqual([expect.stringMatching(/ len: \(strlen\+0x0\/0x[0-9a-f]+\) s="hello"$/), 'return: 5']);
  });

  it('should put the typed trace records in "trace" with --json', () => {
    const json = JSON.parse(ok(['call', '--json', '-e', 'r:lenr strlen $retval', 'strlen', 'str:abc']));
    expect(json.return).toBe('3');
    expect(json.trace).toEqual([
      expect.objectContaining({ type: 'format', event: 'lenr', kind: 'kretprobe' }),
      expect.objectContaining({ type: 'event', event: 'lenr', probe: expect.objectContaining({ symbol: 'strlen' }) }),
    ]);
    expect(json.trace[1].args).toEqual({ arg1: '3' });
  });

  it('should suggest the nearest kernel function for an unknown one', () => {
    const r = int3(['call', '-e', 'p:x strlen', 'strlenn', 'str:x']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^int3: unknown kernel symbol 'strlenn'; did you mean strlen/);
  });
});

describe('output and usage', () => {
  it('should write no escape codes when stdout and stderr are pipes', () => {
    const r = int3(['trace', '-e', OPEN, '--run', 'cat /etc/motd', '--run', 'spin 2000000']);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain(ESC);
    expect(r.stderr).toBe('');
    const bad = int3(['trace', '-e', 'p:x nope_nope']);
    expect(bad.stderr).not.toContain(ESC);
    expect(ok(['demo'])).not.toContain(ESC);
  });

  it('should end quietly when the reader goes away (| head)', () => {
    const bin = join(REPO_ROOT, 'packages/cli/dist/bin.js');
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" replay --help | true; echo "status $?"`], {
      encoding: 'utf8',
    });
    expect(r.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(r.stdout).toBe('status 0\n');
  });

  it('should refuse --filter on a bare event name two groups define, naming both', () => {
    const r = int3([
      'trace',
      '-e',
      'p:a/open do_sys_open',
      '-e',
      'p:b/open do_sys_open',
      '--filter',
      'open=common_pid == 1',
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^int3: --filter names event 'open', which 2 groups define \(a\/open, b\/open\)/);
    expect(
      int3([
        'trace',
        '-e',
        'p:a/open do_sys_open',
        '-e',
        'p:b/open do_sys_open',
        '--filter',
        'a/open=common_pid == 1',
        '--run',
        'hello',
      ]).status,
    ).toBe(0);
  });

  it('should print the version and accept the global options after the command', () => {
    expect(ok(['--version']).trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(ok(['syms', 'sys_mkdir', '--quiet', '--no-color'])).toBe('sys_mkdir\n');
  });
});
