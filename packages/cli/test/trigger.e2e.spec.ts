// End-to-end tests of event triggers from the CLI: `trace --trigger`, `record`/`replay --trigger`, and
// the tracefs shell's `trigger` and `hist` files. They spawn the built binary (dist/).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { int3, lines, ok } from './int3.js';

const dir = mkdtempSync(join(tmpdir(), 'int3-trigger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const READ = 'p:rd vfs_read count=%dx:u64';
const HIST = 'rd=hist:keys=common_pid.execname:vals=count';
const RUNS = ['--run', 'cat /etc/motd', '--run', 'fork 2'];

/** The hist table at the end of an output: from `# event histogram` on. */
function histOf(out: string): string {
  return out.slice(out.indexOf('# event histogram'));
}

describe('int3 trace --trigger', () => {
  it('should print the hist table after the trace, in the kernel format', () => {
    const out = ok(['trace', '-e', READ, '--trigger', HIST, '--cpus', '1', '--run', 'cat /etc/motd']);
    expect(histOf(out)).toBe(
      [
        '# event histogram',
        '#',
        '# trigger info: hist:keys=common_pid.execname:vals=hitcount,count:sort=hitcount:size=2048 [active]',
        '#',
        '',
        '{ common_pid: cat             [         1] } hitcount:          2  count:       1024',
        '',
        'Totals:',
        '    Hits: 2',
        '    Entries: 1',
        '    Dropped: 0',
        '',
      ].join('\n'),
    );
    expect(lines(out.slice(0, out.indexOf('# event histogram'))).every((l) => l.includes(' rd: '))).toBe(true);
  });

  it('should take several triggers, newest first, and put stack traces in the trace', () => {
    // The newest trigger runs first: traceoff then stacktrace finds tracing off and writes nothing.
    const off = ok([
      'trace',
      '-e',
      READ,
      '--trigger',
      'rd=stacktrace:1',
      '--trigger',
      'rd=traceoff:1',
      '--run',
      'cat /etc/motd',
    ]);
    expect(lines(off)).toEqual([expect.stringMatching(/ rd: \(vfs_read\+0x0\//)]);
    const out = ok([
      'trace',
      '-e',
      READ,
      '--trigger',
      'rd=traceoff:1',
      '--trigger',
      'rd=stacktrace:1',
      '--run',
      'cat /etc/motd',
    ]);
    expect(lines(out)).toEqual([
      expect.stringMatching(/ rd: \(vfs_read\+0x0\//),
      expect.stringMatching(/: <stack trace>$/),
      ' => vfs_read',
      ' => ksys_read',
      ' => sys_read',
      ' => do_syscall_64',
      ' => entry_SYSCALL_64',
    ]);
  });

  it('should refuse a bad trigger with the errno, the error_log lines for hist, and exit 2', () => {
    const r = int3(['trace', '-e', READ, '--trigger', 'rd=hist:keys=count.bogus']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      [
        "int3: bad --trigger for rd: Invalid argument: hist: bad key 'count.bogus' (see 'int3 trace --help')",
        'hist:kprobes:rd: error: Invalid field modifier',
        '  Command: hist:keys=count.bogus',
        '                           ^',
        '',
      ].join('\n'),
    );
    expect(int3(['trace', '-e', READ, '--trigger', 'rd=traceon', '--trigger', 'rd=traceoff']).stderr).toMatch(
      /^int3: bad --trigger for rd: File exists: /,
    );
    expect(int3(['trace', '--trigger', 'nonsense']).stderr).toMatch(/^int3: bad --trigger 'nonsense'/);
    expect(int3(['trace', '-e', READ, '--trigger', 'xx=traceon']).stderr).toMatch(
      /--trigger names event 'xx', which no -e defines/,
    );
  });
});

describe('int3 record and replay with triggers', () => {
  it('should replay a recorded trigger byte for byte', () => {
    const log = join(dir, 'hist.int3log');
    const live = ok(['trace', '-e', READ, '--trigger', HIST, ...RUNS]);
    expect(ok(['record', '-o', log, '-e', READ, '--trigger', HIST, ...RUNS])).toBe(live);
    expect(ok(['replay', log])).toBe(live);
  });

  it('should give a hist trigger added at replay the table a live run with it printed', () => {
    const log = join(dir, 'plain.int3log');
    ok(['record', '-o', log, '-e', 'p:op do_sys_open', ...RUNS]);
    const replayed = ok(['replay', log, '-e', READ, '--trigger', HIST]);
    const live = ok(['trace', '-e', 'p:op do_sys_open', '-e', READ, '--trigger', HIST, ...RUNS]);
    expect(histOf(replayed)).toMatch(/^# event histogram\n/);
    expect(histOf(replayed)).toBe(histOf(live));
  });
});

describe('int3 tracefs with triggers', () => {
  it('should take trigger commands and show the hist file, as echo and cat would', () => {
    const script = [
      `echo '${READ}' > kprobe_events`,
      'cat events/kprobes/rd/trigger',
      "echo 'hist:keys=count.log2' > events/kprobes/rd/trigger",
      'cat events/kprobes/rd/enable',
      'run cat /etc/motd',
      'cat events/kprobes/rd/hist',
      "echo 'hist:keys=nosuch' >> events/kprobes/rd/trigger",
      'cat error_log',
    ].join('\n');
    const r = int3(['tracefs', '--cpus', '1'], `${script}\n`);
    const out = lines(r.stdout);
    expect(out.slice(0, 3)).toEqual([
      '# Available triggers:',
      '# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist',
      '0*',
    ]);
    expect(out).toContain('{ count: ~ 2^9  } hitcount:          2');
    expect(out.at(-3)).toMatch(/^\[ *\d+\.\d{6}\] hist:kprobes:rd: error: Couldn't find field$/);
    expect(r.stderr).toMatch(/Invalid argument/);
  });
});
