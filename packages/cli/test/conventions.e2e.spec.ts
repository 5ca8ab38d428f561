// The CLI conventions int3 shares with perf, trace-cmd, bpftrace and GNU tools: -V, one error prefix,
// --color=WHEN with FORCE_COLOR/NO_COLOR/TERM, and `-- WORKLOAD ARGS…`.
import { describe, expect, it } from 'vitest';
import { SHELL_COMMANDS } from '../src/shell/complete-shell-line.js';
import { SHELL_HELP } from '../src/shell/tracefs-shell.js';
import { int3, lines, ok } from './int3.js';

const ESC = '\x1b';
const OPEN = 'p:open do_sys_open filename=+0(%si):string';

/** The environment without the colour variables a test runner may set. */
function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { FORCE_COLOR: _f, NO_COLOR: _n, TERM: _t, ...rest } = process.env;
  return { ...rest, ...extra };
}

describe('int3 -V, --version, --help', () => {
  it('should print the version for -V as for --version, and the help with every command', () => {
    expect(ok(['-V'])).toBe(ok(['--version']));
    const help = ok(['--help']);
    expect(help).toMatch(/^ {2}-V, --version +print the version$/m);
    for (const name of ['trace', 'record', 'replay', 'tracefs', 'syms', 'call', 'demo']) {
      expect(help).toMatch(new RegExp(`^ {2}${name} \\[options\\]`, 'm'));
    }
  });
});

describe('the error prefix', () => {
  it("should start every error line with 'int3: ', from int3 and from the option parser, without a stack", () => {
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
  });

  it('should paint the prefix only when stderr takes colours', () => {
    expect(int3(['--bogus'], undefined, { env: env() }).stderr).not.toContain(ESC);
    const forced = int3(['trace', '--cpus', 'x'], undefined, { env: env({ FORCE_COLOR: '1' }) });
    expect(forced.stderr.startsWith(`${ESC}[1;31mint3:${ESC}[0m bad --cpus 'x'`)).toBe(true);
  });
});

describe('--color', () => {
  const args = ['trace', '-e', OPEN, '--run', 'cat /etc/motd'];

  it('should colour a pipe with --color=always or FORCE_COLOR, and not with never, NO_COLOR or TERM=dumb', () => {
    expect(int3([...args, '--color=always'], undefined, { env: env() }).stdout).toContain(ESC);
    expect(int3(['--color', 'always', ...args], undefined, { env: env() }).stdout).toContain(ESC);
    expect(int3(args, undefined, { env: env({ FORCE_COLOR: '1', NO_COLOR: '1' }) }).stdout).toContain(ESC);
    for (const [extra, e] of [
      [['--color=never'], env({ FORCE_COLOR: '1' })],
      [['--no-color'], env({ FORCE_COLOR: '1' })],
      [[], env({ FORCE_COLOR: '0' })],
      [['--color=auto'], env({ NO_COLOR: '1' })],
      [[], env({ TERM: 'dumb' })],
      [[], env()],
    ] as const) {
      const r = int3([...args, ...extra], undefined, { env: e });
      expect(r.status).toBe(0);
      expect(r.stdout).not.toContain(ESC);
      expect(r.stdout).toMatch(/open: \(do_sys_open/);
    }
  });
});

describe('int3 trace -- WORKLOAD ARGS…', () => {
  it('should run the words after -- as one workload, as --run with them would', () => {
    const viaRun = ok(['trace', '-e', OPEN, '--run', "cat '/etc/motd'"]);
    expect(ok(['trace', '-e', OPEN, '--', 'cat', '/etc/motd'])).toBe(viaRun);
    expect(lines(ok(['trace', '-e', OPEN, '--run', 'cat /etc/hostname', '--', 'cat', '/etc/motd']))).toHaveLength(2);
  });

  it('should record the words after -- as one workload too', () => {
    const r = int3(['record', '-o', '/dev/null', '-e', OPEN, '--', 'cat', '/etc/motd']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/filename="\/etc\/motd"/);
  });
});

describe("int3 syms GLOB (the kernel's glob_match)", () => {
  it('should take a malformed [ as a literal, as glob_match does, and match nothing with it', () => {
    expect(ok(['syms', '['])).toBe('');
    expect(ok(['syms', 'sys_mk[a-d]i?'])).toBe('sys_mkdir\n');
  });

  it('should exclude the names a [!…] class names, so [!s]* and s* split the whole list', () => {
    const all = lines(ok(['syms']));
    const notS = lines(ok(['syms', '[!s]*']));
    expect(notS.length).toBeGreaterThan(0);
    expect(notS.filter((n) => n.startsWith('s'))).toEqual([]);
    expect(notS.length + lines(ok(['syms', 's*'])).length).toBe(all.length);
  });

  it('should answer twelve stars as one (a regular expression backtracked for minutes there)', () => {
    expect(ok(['syms', '************z'])).toBe(ok(['syms', '*z']));
  });
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
