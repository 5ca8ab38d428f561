// The CLI conventions int3 shares with perf, trace-cmd, bpftrace and GNU tools: -V, one error prefix,
// --color=WHEN with FORCE_COLOR/NO_COLOR/TERM, and `-- WORKLOAD ARGS…`.
import { describe, expect, it } from 'vitest';
import { SHELL_COMMANDS } from '../src/shell/complete-shell-line.js';
import { SHELL_HELP } from '../src/shell/tracefs-shell.js';
import { int3, lines, ok } from './int3.js';

/** Tests that boot the machine more than once: each spawn boots it, up to ~15 s on a loaded 2-core machine. */
const SEVERAL_BOOTS_MS = 180_000;

const ESC = '\x1b';
const OPEN = 'p:open do_sys_open filename=+0(%si):string';

/** The environment without the colour variables a test runner may set. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { FORCE_COLOR: _f, NO_COLOR: _n, TERM: _t, ...rest } = process.env;
  return { ...rest, ...extra };
}

describe('int3 -V, --version, --help', () => {
  it(
    'should print the version for -V as for --version, and the help with every command',
    () => {
      expect(ok(['-V'])).toBe(ok(['--version']));
      const help = ok(['--help']);
      expect(help).toMatch(/^ {2}-V, --version +print the version$/m);
      for (const name of ['trace', 'record', 'replay', 'tracefs', 'syms', 'call', 'demo']) {
        expect(help).toMatch(new RegExp(`^ {2}${name} \\[options\\]`, 'm'));
      }
    },
    SEVERAL_BOOTS_MS,
  );
});

describe('the error prefix', () => {
  it(
    "should start every error line with 'int3: ', from int3 and from the option parser, without a stack",
    () => {
      for (const args of [
        ['--bogus'],
        ['trace', '--cpus', 'x'],
        ['syms', '--color', 'sometimes'],
        ['trace', '--', 'nosuch'],
      ]) {
        const r = int3(args, undefined, { env: env() });
        expect(r.status).toBe(2);
        expect(r.stderr).toMatch(/^int3: /);
        expect(r.stderr).not.toMatch(/^error:|\n\s+at /m);
      }
    },
    SEVERAL_BOOTS_MS,
  );

  it('should paint the prefix only when stderr takes colours', () => {
    expect(int3(['--bogus'], undefined, { env: env() }).stderr).not.toContain(ESC);
    const forced = int3(['trace', '--cpus', 'x'], undefined, { env: env({ FORCE_COLOR: '1' }) });
    expect(forced.stderr.startsWith(`${ESC}[1;31mint3:${ESC}[0m bad --cpus 'x'`)).toBe(true);
  });
});

describe(
  '--color',
  () => {
    const trace = ['trace', '-e', OPEN, '--run', 'cat /etc/motd'];
    // A usage error is printed before the machine boots: a cheap way to see how stderr is painted.
    const usage = ['trace', '--cpus', 'x'];
    const painted = (text: string) => text.includes(ESC);

    it('should colour a piped trace with --color=always, and not by default', () => {
      const always = int3([...trace, '--color=always'], undefined, { env: env() });
      expect(always.stdout).toContain(ESC);
      const plain = int3(trace, undefined, { env: env() });
      expect(plain.status).toBe(0);
      expect(plain.stdout).toMatch(/open: \(do_sys_open/);
      expect(plain.stdout).not.toContain(ESC);
    });

    it(
      'should force colours with FORCE_COLOR (over NO_COLOR) and --color always, and drop them for never and FORCE_COLOR=0',
      () => {
        expect(painted(int3(usage, undefined, { env: env({ FORCE_COLOR: '1', NO_COLOR: '1' }) }).stderr)).toBe(true);
        expect(painted(int3(['--color', 'always', ...usage], undefined, { env: env() }).stderr)).toBe(true);
        expect(painted(int3([...usage, '--color=never'], undefined, { env: env({ FORCE_COLOR: '1' }) }).stderr)).toBe(
          false,
        );
        expect(painted(int3([...usage, '--no-color'], undefined, { env: env({ FORCE_COLOR: '1' }) }).stderr)).toBe(
          false,
        );
        expect(painted(int3(usage, undefined, { env: env({ FORCE_COLOR: '0' }) }).stderr)).toBe(false);
      },
      SEVERAL_BOOTS_MS,
    );
  },
  SEVERAL_BOOTS_MS,
);

describe('int3 trace -- WORKLOAD ARGS…', () => {
  it(
    'should run the words after -- as one workload, as --run with them would',
    () => {
      const viaRun = ok(['trace', '-e', OPEN, '--run', "cat '/etc/motd'"]);
      expect(ok(['trace', '-e', OPEN, '--', 'cat', '/etc/motd'])).toBe(viaRun);
      expect(lines(ok(['trace', '-e', OPEN, '--run', 'cat /etc/hostname', '--', 'cat', '/etc/motd']))).toHaveLength(2);
    },
    SEVERAL_BOOTS_MS,
  );

  it('should record the words after -- as one workload too', () => {
    const r = int3(['record', '-o', '/dev/null', '-e', OPEN, '--', 'cat', '/etc/motd']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/filename="\/etc\/motd"/);
  });
});

describe("int3 syms GLOB (the kernel's glob_match)", () => {
  it(
    'should take a malformed [ as a literal, as glob_match does, and match nothing with it',
    () => {
      expect(ok(['syms', '['])).toBe('');
      expect(ok(['syms', 'sys_mk[a-d]i?'])).toBe('sys_mkdir\n');
    },
    SEVERAL_BOOTS_MS,
  );

  it(
    'should exclude the names a [!…] class names, so [!s]* and s* split the whole list',
    () => {
      const all = lines(ok(['syms']));
      const notS = lines(ok(['syms', '[!s]*']));
      expect(notS.length).toBeGreaterThan(0);
      expect(notS.filter((n) => n.startsWith('s'))).toEqual([]);
      expect(notS.length + lines(ok(['syms', 's*'])).length).toBe(all.length);
    },
    SEVERAL_BOOTS_MS,
  );

  it(
    'should answer twelve stars as one (a regular expression backtracked for minutes there)',
    () => {
      expect(ok(['syms', '************z'])).toBe(ok(['syms', '*z']));
    },
    SEVERAL_BOOTS_MS,
  );
});

describe('int3 trace --filter errors', () => {
  const DEF = 'p:o do_sys_open flags=%dx';

  it("should show the kernel's caret diagnostic, as the filter file reads after the write, and exit 2", () => {
    const r = int3(['trace', '-e', DEF, '--filter', 'o=flags == 1 && fo == 2']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      [
        "int3: bad --filter for o: Invalid argument (see 'int3 trace --help')",
        'flags == 1 && fo == 2',
        '                 ^',
        'parse_error: Field not found',
        '',
      ].join('\n'),
    );
  });

  it('should refuse a filter of a page or more (5,000 nested parentheses) with one line, as the kernel does', () => {
    const r = int3(['trace', '-e', DEF, '--filter', `o=${'('.repeat(5000)}flags == 1${')'.repeat(5000)}`]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^int3: bad --filter for o: Invalid argument: filter for kprobes\/o too long: .*4096 bytes/,
    );
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('int3 tracefs help', () => {
  it('should list every shell command with its usage', () => {
    const r = int3(['tracefs'], 'help\n');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(SHELL_HELP);
    for (const name of SHELL_COMMANDS) expect(SHELL_HELP).toMatch(new RegExp(`^${name}\\b`, 'm'));
  });
});
