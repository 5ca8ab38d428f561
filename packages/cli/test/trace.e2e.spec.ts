// End-to-end tests of `int3 trace`, `record` and `replay`: they spawn the built binary (dist/).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { int3, lines, ok } from './int3.js';

const dir = mkdtempSync(join(tmpdir(), 'int3-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPEN = 'p:open do_sys_open dfd=%di filename=+0(%si):string';
const MKDIR_RET = 'r:mkdir_ret sys_mkdir $retval';
const RUNS = ['--run', 'cat /etc/motd', '--run', 'mkdir /tmp/x'];

describe('int3 trace', () => {
  it('should print one ftrace line per hit, as trace_pipe does, and nothing else', () => {
    const out = lines(ok(['trace', '-e', OPEN, '--run', 'cat /etc/motd']));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(
      /^ +cat-\d+ +\[00\d\] d\.\.\.\. +\d+\.\d{6}: open: \(do_sys_open\+0x0\/0x[0-9a-f]+\) dfd=0xffffff9c filename="\/etc\/motd"$/,
    );
  });

  it('should print one typed JSON object per record with --format json', () => {
    const out = lines(ok(['trace', '-e', OPEN, '-e', MKDIR_RET, ...RUNS, '--format', 'json']));
    const records = out.map((l) => JSON.parse(l)).filter((r) => r.type === 'event');
    expect(records.map((r) => r.event).sort()).toEqual(['mkdir_ret', 'open']);
    const open = records.find((r) => r.event === 'open');
    expect(open).toMatchObject({ comm: 'cat', args: { dfd: '4294967196', filename: '/etc/motd' } });
    expect(records.find((r) => r.event === 'mkdir_ret')).toMatchObject({
      kind: 'kretprobe',
      probe: { symbol: 'sys_mkdir', offset: 0 },
      args: { arg1: '0' },
    });
  });

  it('should apply --filter before the run', () => {
    const all = ok(['trace', '-e', 'p:o do_sys_open flags=%dx', ...RUNS]);
    expect(lines(all).length).toBeGreaterThan(0);
    expect(ok(['trace', '-e', 'p:o do_sys_open flags=%dx', '--filter', 'o=flags == 12345', ...RUNS])).toBe('');
  });

  it('should write the trace to -o instead of stdout', () => {
    const file = join(dir, 'trace.txt');
    expect(ok(['trace', '-e', OPEN, '--run', 'cat /etc/motd', '-o', file])).toBe('');
    expect(readFileSync(file, 'utf8')).toMatch(/open: \(do_sys_open/);
  });

  it('should refuse a bad definition with the error_log caret lines and exit 2', () => {
    const r = int3(['trace', '-e', 'p:open do_sys_opn']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      [
        "int3: bad probe definition 'p:open do_sys_opn': No such file or directory; unknown symbol 'do_sys_opn', did you mean do_sys_open, do_sys_openat2? (see 'int3 trace --help')",
        'trace_kprobe: error: Invalid probed address or symbol',
        '  Command: p:open do_sys_opn',
        '                  ^',
        '',
      ].join('\n'),
    );
  });

  it.each([
    [['trace', '--run', 'cta /etc/motd'], /^int3: unknown workload 'cta': did you mean cat\?/],
    [['trace', '--cpus', '0'], /^int3: bad --cpus '0': expected 1 to 64/],
    [['trace', '--cpus', '65'], /^int3: bad --cpus '65': expected 1 to 64/],
    [['trace', '--format', 'xml'], /^int3: bad --format 'xml'/],
    [['trace', '--filter', 'nonsense'], /^int3: bad --filter 'nonsense'/],
    [['trace', '-e', OPEN, '--filter', 'nope=x == 1'], /--filter names event 'nope', which no -e defines/],
  ])('should refuse %j with exit 2 and no stack trace', (args, message) => {
    const r = int3(args);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.status).toBe(2);
  });
});

describe('int3 record and replay', () => {
  it('should print the same as trace, and replay should print it byte for byte', () => {
    const log = join(dir, 'run.int3log');
    const live = ok(['trace', '-e', OPEN, '--cpus', '2', ...RUNS]);
    const recorded = ok(['record', '-o', log, '-e', OPEN, '--cpus', '2', ...RUNS]);
    expect(recorded).toBe(live);
    expect(lines(recorded).length).toBeGreaterThan(0);
    expect(ok(['replay', log])).toBe(recorded);
    expect(lines(ok(['replay', log, '--format', 'json']))[0]).toMatch(/^\{"type":"header"/);
  });

  it('should give a probe added at replay the lines a live run with it printed', () => {
    const log = join(dir, 'retro.int3log');
    ok(['record', '-o', log, '-e', OPEN, ...RUNS]);
    const replayed = lines(ok(['replay', log, '-e', MKDIR_RET]));
    const live = lines(ok(['trace', '-e', OPEN, '-e', MKDIR_RET, ...RUNS]));
    const ofB = (ls: string[]) => ls.filter((l) => l.includes(' mkdir_ret: '));
    expect(ofB(live)).toHaveLength(1);
    expect(ofB(replayed)).toEqual(ofB(live));
    expect(replayed.sort()).toEqual(live.sort());
  });

  it('should refuse a missing or corrupt log with exit 2 and say which', () => {
    const missing = int3(['replay', join(dir, 'nope.int3log')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^int3: cannot read log '.*nope\.int3log': no such file/);
    const corrupt = join(dir, 'corrupt.int3log');
    writeFileSync(corrupt, 'not a log\n');
    const r = int3(['replay', corrupt]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^int3: cannot replay .*corrupt\.int3log: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
