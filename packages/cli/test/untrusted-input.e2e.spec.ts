// Issue 13's parser and input cases: each answered with one clear line, in bounded time and memory,
// and the tracefs session goes on.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NON_RETURNING_CALLS } from '../src/call/non-returning-calls.js';
import { tempDir } from '../src/temp-dir.fixture.js';
import { int3 } from './int3.js';

/** Tests that boot the machine more than once: each spawn boots it, up to ~15 s on a loaded 2-core machine. */
const SEVERAL_BOOTS_MS = 180_000;

const DEFINE = "echo 'p:o do_sys_open flags=%dx' > kprobe_events";

describe('int3 tracefs: filters built to exhaust a recursive parser', () => {
  it("should refuse 5,000 nested parentheses, 10,000 '!' and a 10,000-term && chain as the kernel does (a page or more: EINVAL) and go on", () => {
    const filters = [
      `${'('.repeat(5000)}flags == 1${')'.repeat(5000)}`,
      `${'!'.repeat(10_000)}flags == 1`,
      Array(10_000).fill('flags == 1').join(' && '),
    ];
    const script = [
      DEFINE,
      ...filters.map((f) => `echo '${f}' > events/kprobes/o/filter`),
      'cat events/kprobes/o/filter',
      // Just under a page: accepted, folded, and matching as its meaning says (an odd run of '!').
      `echo '${'!'.repeat(4001)}flags == 12345' > events/kprobes/o/filter`,
      'echo 1 > events/kprobes/o/enable',
      'run cat /etc/motd',
      'cat trace_pipe',
    ].join('\n');
    const r = int3(['tracefs'], script);
    expect(r.stderr).toBe('echo: write error: Invalid argument\n'.repeat(3));
    expect(r.status).toBe(1);
    const out = r.stdout.split('\n');
    expect(out[0]).toBe('none');
    expect(out.filter((l) => / o: \(do_sys_open\+0x0\/0x40\) flags=/.test(l))).toHaveLength(1);
  });
});

describe('--cpus', () => {
  it(
    'should boot 64 CPUs, as the kernel and README say, run workloads on several, and replay such a run byte for byte',
    () => {
      const log = join(tempDir('int3-cpus-'), 'cpus64.int3log');
      const runs = ['--run', 'cat /etc/motd', '--run', 'cat /etc/hostname', '--run', 'dd'];
      const traced = int3(['record', '--cpus', '64', '-o', log, '-e', 'p:open do_sys_open', ...runs]);
      expect(traced.status).toBe(0);
      const cpus = new Set(traced.stdout.split('\n').flatMap((l) => /\[(\d{3})\]/.exec(l)?.[1] ?? []));
      expect(cpus.size).toBeGreaterThan(1);
      expect(int3(['replay', log]).stdout).toBe(traced.stdout);
      expect(int3(['tracefs', '--cpus', '64'], 'cat trace\n').stdout).toMatch(/#P:64\n/);
    },
    SEVERAL_BOOTS_MS,
  );
});

describe('workload arguments beyond the guest limit', () => {
  it('should refuse a 1 MB argument and 10,000 arguments with E2BIG in the tracefs shell, which goes on', () => {
    const dir = tempDir('int3-argv-');
    const script = join(dir, 'argv.sh');
    writeFileSync(
      script,
      [`run cat ${'x'.repeat(1 << 20)}`, `run cat ${Array(10_000).fill('a').join(' ')}`, 'run cat /etc/motd'].join(
        '\n',
      ),
    );
    const r = int3(['tracefs', '--script', script]);
    const refusal = /^run: cannot run 'cat': Argument list too long: \d+ arguments need more than 32768 bytes /;
    const errors = r.stderr.trimEnd().split('\n');
    expect(errors).toHaveLength(2);
    for (const line of errors) expect(line).toMatch(refusal);
    expect(r.stdout).toMatch(/^Welcome to int3\./);
    expect(r.status).toBe(1);
  });

  it('should refuse them before booting in trace, with one line and exit 2', () => {
    const r = int3(['trace', '--', 'cat', ...Array(10_000).fill('a')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^int3: cannot run 'cat': Argument list too long: 10001 arguments/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('calls that cannot return to the caller', () => {
  it('should refuse do_exit, then schedule, and jprobe_return with a message, and go on calling', () => {
    const r = int3(['tracefs'], 'call do_exit 0\ncall schedule\ncall jprobe_return\ncall strlen str:ab\n');
    expect(r.stderr.split('\n').slice(0, 3)).toEqual([
      'call: do_exit cannot return to its caller: it ends the calling task (__noreturn); call a function that returns',
      'call: schedule cannot return to its caller: it switches to another task; call a function that returns',
      "call: jprobe_return cannot return to its caller: it jumps back into a jprobe handler's saved frame (longjmp), which a call has not; call a function that returns",
    ]);
    expect(r.stdout).toMatch(/^return: 2$/m);
    expect(r.status).toBe(1);
  });

  it(
    'should refuse them by address too, and name only functions the sample kernel has',
    () => {
      const syms = JSON.parse(int3(['syms', '--json']).stdout) as { name: string; address: string }[];
      const names = new Set(syms.map((s) => s.name));
      for (const name of NON_RETURNING_CALLS.keys()) expect(names).toContain(name);
      const doExit = syms.find((s) => s.name === 'do_exit')!.address;
      const r = int3(['call', '-e', 'p:x do_exit', doExit, '0']);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^int3: do_exit cannot return to its caller/);
    },
    SEVERAL_BOOTS_MS,
  );
});

describe('INT3_JIT_THRESHOLD', () => {
  it('should refuse a threshold that is no count with one line and exit 2, before the command runs', () => {
    for (const bad of ['abc', '0', '1e9']) {
      const r = int3(['trace', '-e', 'p:o do_sys_open', '--run', 'cat /etc/motd'], undefined, {
        env: { ...process.env, INT3_JIT_THRESHOLD: bad },
      });
      expect([r.status, r.stdout, r.stderr.trimEnd().split('\n')]).toEqual([
        2,
        '',
        [`int3: INT3_JIT_THRESHOLD=${bad}: a whole number of visits from 1 to 65535 was expected (see 'int3 --help')`],
      ]);
    }
    const ok = int3(['trace', '-e', 'p:o do_sys_open', '--run', 'cat /etc/motd'], undefined, {
      env: { ...process.env, INT3_JIT_THRESHOLD: '1' },
    });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('o: (do_sys_open+0x0/');
  });
});
