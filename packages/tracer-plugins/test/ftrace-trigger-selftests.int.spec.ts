import { describe, expect, it } from 'vitest';
import type { TraceFs } from '../src/tracefs/trace-fs.js';
import { bootTraceFs, errnoOf, run, traceLines } from './support/tracefs-machine.js';

/*
 * The cases of Linux's ftrace selftests for event triggers (tools/testing/selftests/ftrace/test.d/
 * trigger/*.tc), one `describe` per file, on kprobe events instead of the scripts' sched events:
 * `sched_process_fork` becomes a kprobe event on `kernel_clone` (the function that forks, whose first
 * argument field stands in for `child_pid`), `sched_switch` a kprobe event on `vfs_read`. The scripts'
 * `( echo "forked")` is a `fork` workload; `reset_trigger` removes every trigger by writing `!` + its line.
 */

const FORK = 'events/kprobes/forkev';
const READ = 'events/kprobes/readev';

/** Defines the two events (neither enabled) and returns the booted machine. */
function boot() {
  const booted = bootTraceFs();
  booted.fs.write('kprobe_events', 'p:forkev kernel_clone arg1=%di\np:readev vfs_read');
  return booted;
}

/** What `echo TEXT > FILE` does to the errno: 'ok' or the errno name. */
function echo(fs: TraceFs, text: string, path: string): string {
  return errnoOf(() => fs.write(path, `${text}\n`));
}

/**
 * The selftests' reset_trigger_file: each listed trigger, cut at `[`, is written back after a `!`
 * with a truncating write (`echo "!$cmd" > $file`).
 */
function resetTrigger(fs: TraceFs, path: string): void {
  for (const line of fs.read(path).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    fs.write(path, `!${line.split('[')[0]}\n`);
  }
}

describe('trigger file (event_trigger_regex_write, trigger_show)', () => {
  it('should list the available triggers when there are none, as the kernel prints them', () => {
    const { fs } = boot();
    expect(fs.read(`${FORK}/trigger`)).toBe(
      '# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n',
    );
    expect(fs.ls(FORK)).toContain('trigger');
  });

  it('should list active triggers newest first with their counts and filters', () => {
    const { fs } = boot();
    fs.write(`${FORK}/trigger`, 'traceoff:3 if common_pid == 1');
    fs.write(`${FORK}/trigger`, 'stacktrace');
    fs.write(`${FORK}/trigger`, 'enable_event:kprobes:readev:0x2');
    expect(fs.read(`${FORK}/trigger`)).toBe(
      'enable_event:kprobes:readev:count=2\nstacktrace:unlimited\ntraceoff:count=3 if common_pid == 1\n',
    );
  });

  it('should reject unknown commands, bad counts and bad filters with EINVAL and keep nothing', () => {
    const { fs } = boot();
    for (const bad of ['nosuch', 'traceon:5abc', 'traceon if', 'traceon junk', 'traceon if nosuchfield == 1', '']) {
      expect(echo(fs, bad, `${FORK}/trigger`), bad).toBe('EINVAL');
    }
    expect(fs.read(`${FORK}/trigger`)).toMatch(/^# Available triggers:/);
  });

  it('should accept removing a trigger that is not there', () => {
    const { fs } = boot();
    expect(echo(fs, '!traceoff', `${FORK}/trigger`)).toBe('ok');
  });

  it('should arm a triggered event softly: enable reads 0* and the event itself records nothing', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/trigger`, 'stacktrace');
    expect(fs.read(`${FORK}/enable`)).toBe('0*\n');
    run(m, ['fork', '1']);
    expect(traceLines(fs).some((l) => l.includes('forkev:'))).toBe(false);
    fs.write(`${FORK}/enable`, '1');
    expect(fs.read(`${FORK}/enable`)).toBe('1*\n');
    fs.write(`${FORK}/trigger`, '!stacktrace');
    expect(fs.read(`${FORK}/enable`)).toBe('1\n');
  });

  it('should refuse to remove an event that has a trigger (EBUSY)', () => {
    const { fs } = boot();
    fs.write(`${FORK}/trigger`, 'traceon');
    expect(errnoOf(() => fs.write('kprobe_events', '-:forkev', { append: true }))).toBe('EBUSY');
    fs.write(`${FORK}/trigger`, '!traceon');
    expect(errnoOf(() => fs.write('kprobe_events', '-:forkev', { append: true }))).toBe('ok');
  });
});

describe('trigger-traceonoff.tc (event trigger - test traceon/off trigger)', () => {
  it('should turn tracing off when the event fires', () => {
    const { m, fs } = boot();
    fs.write('tracing_on', '1');
    fs.write(`${FORK}/trigger`, 'traceoff');
    run(m, ['fork', '1']);
    expect(fs.read('tracing_on')).toBe('0\n');
  });

  it('should turn tracing on when the event fires', () => {
    const { m, fs } = boot();
    fs.write('tracing_on', '0');
    fs.write(`${FORK}/trigger`, 'traceon');
    run(m, ['fork', '1']);
    expect(fs.read('tracing_on')).toBe('1\n');
  });

  it('should reject the semantic errors: a bad param, a bad command, and a second on/off trigger', () => {
    const { fs } = boot();
    const t = `${FORK}/trigger`;
    expect(echo(fs, 'traceoff:badparam', t)).not.toBe('ok');
    expect(echo(fs, 'traceoff+0', t)).not.toBe('ok');
    expect(echo(fs, 'traceon', t)).toBe('ok');
    expect(echo(fs, 'traceon', t)).toBe('EEXIST');
    expect(echo(fs, 'traceoff', t)).toBe('EEXIST');
  });

  it('should trace the hit that turns tracing off, and not the next one; a count spends only real switches', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/enable`, '1');
    fs.write(`${FORK}/trigger`, 'traceoff:1');
    run(m, ['fork', '2']);
    expect(traceLines(fs).filter((l) => l.includes('forkev:'))).toHaveLength(1);
    expect(fs.read(`${FORK}/trigger`)).toBe('traceoff:count=0\n');
  });
});

describe('trigger-eventonoff.tc (event trigger - test event enable/disable trigger)', () => {
  it('should enable the target event softly when the event fires (enable reads 1*)', () => {
    const { m, fs } = boot();
    fs.write(`${READ}/enable`, '0');
    fs.write(`${FORK}/trigger`, 'enable_event:kprobes:readev');
    expect(fs.read(`${READ}/enable`)).toBe('0*\n');
    run(m, ['fork', '1']);
    expect(fs.read(`${READ}/enable`)).toBe('1*\n');
  });

  it('should disable the target event when the event fires (enable reads 0*)', () => {
    const { m, fs } = boot();
    fs.write(`${READ}/enable`, '1');
    fs.write(`${FORK}/trigger`, 'disable_event:kprobes:readev');
    run(m, ['fork', '1']);
    expect(fs.read(`${READ}/enable`)).toBe('0*\n');
    resetTrigger(fs, `${FORK}/trigger`);
    expect(fs.read(`${FORK}/trigger`)).toMatch(/^# Available triggers:/);
    expect(fs.read(`${READ}/enable`)).toBe('0\n');
  });

  it('should reject the semantic errors: no such event, a bad command, and a second trigger on one target', () => {
    const { fs } = boot();
    const t = `${FORK}/trigger`;
    expect(echo(fs, 'enable_event:nogroup:noevent', t)).toBe('EINVAL');
    expect(echo(fs, 'disable_event+1', t)).toBe('EINVAL');
    expect(echo(fs, 'enable_event:kprobes:readev', t)).toBe('ok');
    expect(echo(fs, 'enable_event:kprobes:readev', t)).toBe('EEXIST');
    expect(echo(fs, 'disable_event:kprobes:readev', t)).toBe('EEXIST');
  });

  it('should record the target only after the trigger fired', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/trigger`, 'enable_event:kprobes:readev');
    run(m, ['cat', '/etc/motd']);
    expect(traceLines(fs).some((l) => l.includes('readev:'))).toBe(false);
    run(m, ['fork', '1']);
    run(m, ['cat', '/etc/motd']);
    expect(traceLines(fs).some((l) => l.includes('readev:'))).toBe(true);
  });
});

describe('trigger-stacktrace.tc (event trigger - test stacktrace-trigger)', () => {
  it('should write a <stack trace> entry, after the event, naming the callers by frame pointers', () => {
    const { m, fs } = boot();
    fs.write('trace', '0');
    fs.write(`${FORK}/enable`, '1');
    fs.write(`${FORK}/trigger`, 'stacktrace');
    run(m, ['fork', '1']);
    const text = fs.read('trace');
    const lines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    const at = lines.findIndex((l) => l.endsWith(': <stack trace>'));
    expect(at).toBeGreaterThan(0);
    expect(lines[at - 1]).toMatch(/ forkev: \(kernel_clone\+0x0\//);
    // The probed function, then its callers up to the system call entry.
    expect(lines.slice(at + 1, at + 5)).toEqual([
      ' => kernel_clone',
      ' => sys_fork',
      ' => do_syscall_64',
      ' => entry_SYSCALL_64',
    ]);
  });

  it('should reject a bad param and a second stacktrace trigger', () => {
    const { fs } = boot();
    const t = `${FORK}/trigger`;
    expect(echo(fs, 'stacktrace:foo', t)).toBe('EINVAL');
    expect(echo(fs, 'stacktrace', t)).toBe('ok');
    expect(echo(fs, 'stacktrace', t)).toBe('EEXIST');
  });

  it('should stop after N stack traces with stacktrace:N', () => {
    const { m, fs } = boot();
    fs.write(`${FORK}/trigger`, 'stacktrace:1');
    run(m, ['fork', '3']);
    expect(traceLines(fs).filter((l) => l.endsWith('<stack trace>'))).toHaveLength(1);
    expect(fs.read(`${FORK}/trigger`)).toBe('stacktrace:count=0\n');
  });
});

describe('trigger-filter.tc (event trigger - test trigger filter)', () => {
  it('should not fire a trigger whose filter rejects the hit', () => {
    const { m, fs } = boot();
    fs.write('tracing_on', '1');
    // child_pid == 0 in the script: no hit has a zero first argument here either.
    fs.write(`${FORK}/trigger`, 'traceoff if arg1 == 0');
    run(m, ['fork', '1']);
    expect(fs.read('tracing_on')).toBe('1\n');
  });

  it('should fire a trigger whose filter passes, even with tracing off (the record is built aside)', () => {
    const { m, fs } = boot();
    fs.write('tracing_on', '0');
    fs.write(`${FORK}/trigger`, 'traceon if common_pid > 0');
    run(m, ['fork', '1']);
    expect(fs.read('tracing_on')).toBe('1\n');
  });

  it('should reject the bad filters and accept the good ones, each removable', () => {
    const { fs } = boot();
    const t = `${FORK}/trigger`;
    for (const bad of ['traceoff if a', 'traceoff if common_pid=0', 'traceoff if common_pid==b']) {
      expect(echo(fs, bad, t), bad).toBe('EINVAL');
    }
    for (const good of [
      'traceoff if common_pid == 0',
      'traceoff if common_pid <= 0',
      'traceoff if common_pid >= 0',
      'traceoff if common_pid >= 0 && arg1 >= 0',
      'traceoff if common_pid >= 0 || arg1 >= 0',
    ]) {
      expect(echo(fs, good, t), good).toBe('ok');
      expect(fs.read(t)).toBe(`${good.replace('traceoff', 'traceoff:unlimited')}\n`);
      expect(echo(fs, '!traceoff', t)).toBe('ok');
    }
    // The script's `common_pid == child_pid` compares two fields, which the kernel's filter refuses.
    expect(echo(fs, 'traceoff if common_pid == arg1', t)).toBe('EINVAL');
  });

  it("should log a filter that does not parse to error_log as the event's filter file logs it", () => {
    const { fs } = boot();
    expect(echo(fs, 'nosuch == 1', `${FORK}/filter`)).toBe('EINVAL');
    expect(fs.read('error_log')).toMatch(
      /^\[ {4}0\.\d{6}\] event filter parse error: error: Field not found\n {2}Command: nosuch == 1\n {18}\^\n$/,
    );
    // The same entry, whatever the filter's mistake, for a trigger's `if FILTER` (set_trigger_filter()).
    for (const bad of ['a', 'common_pid=0', 'common_pid==b', 'nosuch == 1', '(common_pid == 1', 'common_pid == "x']) {
      fs.write('error_log', '');
      expect(echo(fs, bad, `${FORK}/filter`), bad).toBe('EINVAL');
      const fromFile = fs.read('error_log').replace(/^\[[^\]]*\]/, '');
      fs.write('error_log', '');
      expect(echo(fs, `traceoff if ${bad}`, `${FORK}/trigger`), bad).toBe('EINVAL');
      expect(fs.read('error_log').replace(/^\[[^\]]*\]/, ''), bad).toBe(fromFile);
      expect(fromFile, bad).toMatch(/^ event filter parse error: error: .+\n {2}Command: .+\n +\^\n$/);
    }
  });
});

describe('trigger-snapshot.tc (event trigger - test snapshot-trigger)', () => {
  it('should move the recorded events into snapshot when the trigger fires', () => {
    const { m, fs } = boot();
    fs.write('snapshot', '0');
    fs.write(`${FORK}/enable`, '1');
    run(m, ['fork', '1']);
    fs.write(`${FORK}/trigger`, 'snapshot:1');
    run(m, ['fork', '1']);
    expect(fs.read('snapshot')).toMatch(/ forkev: /);
    expect(fs.read(`${FORK}/trigger`)).toBe('snapshot:count=0\n');
    // The snapshot was taken before the second hit's record: that one is in trace.
    expect(traceLines(fs).filter((l) => l.includes('forkev:'))).toHaveLength(1);
  });

  it('should reject a bad command and a second snapshot trigger', () => {
    const { fs } = boot();
    const t = `${FORK}/trigger`;
    expect(echo(fs, 'snapshot+1', t)).toBe('EINVAL');
    expect(echo(fs, 'snapshot', t)).toBe('ok');
    expect(echo(fs, 'snapshot', t)).toBe('EEXIST');
  });

  it('should read the snapshot help while the snapshot is empty, allocated or freed', () => {
    const { fs } = boot();
    expect(fs.read('snapshot')).toContain('# * Snapshot is freed *\n');
    fs.write('snapshot', '1');
    expect(fs.read('snapshot')).toContain('# * Snapshot is allocated *\n');
    expect(fs.read('snapshot').startsWith('# tracer: nop\n#\n#\n')).toBe(true);
  });
});
