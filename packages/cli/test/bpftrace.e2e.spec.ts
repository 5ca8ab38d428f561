// End-to-end tests of `int3 bpftrace` and `int3 replay --bpftrace`: the built binary, bpftrace's output
// on stdout, `Attached N probes` on stderr, bpftrace's error format, and a replay equal to the live run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../src/temp-dir.fixture.js';
import { int3, startInt3 } from './int3.js';

const dir = tempDir('int3-bpftrace-');

describe('int3 bpftrace', () => {
  it('should count vfs_read by comm while the workload runs, then print the map', () => {
    const r = int3(['bpftrace', '-e', 'kprobe:vfs_read { @[comm] = count(); }', '--run', 'cat /etc/motd']);
    expect(r.stderr).toBe('Attached 1 probe\n');
    expect(r.stdout).toMatch(/^\n\n@\[cat\]: \d+\n$/);
    expect(r.status).toBe(0);
  });

  it('should run a begin-only program without a workload, and a program file', () => {
    const file = join(dir, 'hello.bt');
    writeFileSync(file, 'BEGIN {\n  printf("hello %s\\n", "world");\n  exit();\n}\n');
    const r = int3(['bpftrace', file]);
    expect(r.stdout).toBe('hello world\n\n\n');
    expect(r.stderr).toBe('Attached 1 probe\n');
    expect(r.status).toBe(0);
  });

  it('should print JSON lines with -f json', () => {
    const r = int3(['bpftrace', '-f', 'json', '-e', 'begin { @s = stats(2); @s = stats(10); }']);
    expect(r.stdout).toBe(
      '{"type": "attached_probes", "count": 1, "data": {"probes": 1}}\n{"type": "stats", "data": {"@s": {"count": 2, "average": 6, "total": 12}}}\n',
    );
  });

  it('should report a program error as bpftrace does, with exit status 1', () => {
    const r = int3(['bpftrace', '-e', 'kprobe:vfs_read { fake }']);
    expect(r.stderr).toBe(
      "int3: stdin:1:19-23: ERROR: Unknown identifier: 'fake'\nkprobe:vfs_read { fake }\n                  ~~~~\n",
    );
    expect(r.stdout).toBe('');
    expect(r.status).toBe(1);
  });

  it('should report every mistake of a program, each as bpftrace prints it', () => {
    const r = int3(['bpftrace', '-e', 'kprobe:vfs_read { @x = nosuch(1); @y = other(2); }']);
    expect(r.stderr).toBe(
      "int3: stdin:1:24-33: ERROR: Unknown function: 'nosuch'\nkprobe:vfs_read { @x = nosuch(1); @y = other(2); }\n                       ~~~~~~~~~\n" +
        "stdin:1:40-48: ERROR: Unknown function: 'other'\nkprobe:vfs_read { @x = nosuch(1); @y = other(2); }\n                                       ~~~~~~~~\n",
    );
    expect(r.status).toBe(1);
  });

  it("should exit with exit(code)'s code after the end probes and the maps", () => {
    const r = int3([
      'bpftrace',
      '-e',
      'kprobe:vfs_read { @n = count(); exit(3); } end { printf("end\\n"); }',
      '--run',
      'cat /etc/motd',
    ]);
    expect(r.stdout).toBe('end\n\n\n@n: 1\n');
    expect(r.status).toBe(3);
    expect(int3(['bpftrace', '-e', 'begin { exit(0); }']).status).toBe(0);
    const bad = int3(['bpftrace', '-e', 'begin { exit("no"); }']);
    expect(bad.stderr).toMatch(
      /^int3: stdin:1:14-18: ERROR: exit\(\) expects an integer argument \(string\[3\] provided\)\n/,
    );
    expect(bad.status).toBe(1);
  });

  it('should write printf lines as they come, and on Ctrl-C run the end probes, print the maps and exit 130', async () => {
    const program = 'interval:ms:10 { @ticks = count(); printf("tick\\n"); } end { printf("end\\n"); }';
    const p = startInt3(['bpftrace', '-e', program, '--run', 'spin 1000000000000']);
    await new Promise<void>((resolve) => {
      p.child.stdout?.on('data', () => {
        if (p.stdout.includes('tick\n')) resolve();
      });
    });
    const running = p.child.exitCode === null;
    p.child.kill('SIGINT');
    const r = await p.done;
    expect(running).toBe(true);
    expect(r.signal).toBeNull();
    expect(r.status).toBe(130);
    const ticks = Number(/\n@ticks: (\d+)\n$/.exec(r.stdout)?.[1]);
    expect(r.stdout).toBe(`${'tick\n'.repeat(ticks)}end\n\n\n@ticks: ${ticks}\n`);
    expect(r.stderr).toMatch(/^Attached 2 probes\nint3: interrupted \(Ctrl-C\) at \d+\.\d{6} s of virtual time/);
  });

  it('should refuse a program file that is not a regular file, with exit status 2', () => {
    const r = int3(['bpftrace', dir]);
    expect(r.stderr).toMatch(new RegExp(`^int3: cannot read program '${dir}': .*directory`));
    expect(r.status).toBe(2);
  });

  it('should report wrong arguments of --tracer bpftrace as a usage error: one line, exit status 2', () => {
    // Before, a plain Error: the run failed as a broken plugin would (exit 1, "start(...) threw").
    const format = int3(['--tracer', 'bpftrace -f xml kprobe:vfs_read{}', 'trace', '--run', 'cat /etc/motd']);
    expect(format.stderr).toMatch(
      /^int3: bpftrace: Invalid output format "xml"; usage: bpftrace \[-f text\|json\] 'PROGRAM' .*\n$/,
    );
    expect(format.status).toBe(2);
    const none = int3(['--tracer', 'bpftrace', 'trace', '--run', 'cat /etc/motd']);
    expect(none.stderr).toMatch(/^int3: bpftrace: no program given; usage: bpftrace /);
    expect(none.status).toBe(2);
  });

  it('should refuse an unknown probe function: no probes attached, exit 1', () => {
    const r = int3(['bpftrace', '-e', 'kprobe:nosuch { @ = count(); }']);
    expect(r.stderr).toBe(
      'int3: stdin:1:1-14: ERROR: No matches for kprobe nosuch.\nkprobe:nosuch { @ = count(); }\n~~~~~~~~~~~~~\n',
    );
    expect(r.status).toBe(1);
  });

  it('should list probe-able functions with -l', () => {
    const r = int3(['bpftrace', '-l', 'kprobe:vfs_*']);
    expect(r.stdout.split('\n')).toEqual(expect.arrayContaining(['kprobe:vfs_read', 'kprobe:vfs_write']));
    expect(r.status).toBe(0);
  });

  it('should print the same output live and when replayed over a recorded run', () => {
    const log = join(dir, 'run.int3log');
    const rec = int3(['record', '-o', log, '--run', 'cat /etc/motd']);
    expect(rec.status).toBe(0);
    const prog =
      'kprobe:vfs_read { @[comm] = count(); @t = hist(nsecs % 4096); } kretprobe:vfs_read { @r = sum(retval); }';
    const live = int3(['bpftrace', '-e', prog, '--run', 'cat /etc/motd']);
    const replayed = int3(['replay', log, '--bpftrace', prog]);
    expect(live.status).toBe(0);
    expect(replayed.status).toBe(0);
    expect(replayed.stdout).toBe(live.stdout);
    expect(replayed.stderr).toBe(live.stderr);
    expect(live.stdout).toMatch(/@\[cat\]: \d+\n/);
    // printf lines, exit(code) and the end probe: the same output and the same exit status.
    const exiting =
      'kprobe:vfs_read { printf("%s %d\\n", comm, arg2); @n = count(); if (@n == 2) { exit(5); } } end { printf("end\\n"); }';
    const liveExit = int3(['bpftrace', '-e', exiting, '--run', 'cat /etc/motd']);
    const replayedExit = int3(['replay', log, '--bpftrace', exiting]);
    expect(liveExit.stdout).toMatch(/^cat \d+\ncat \d+\nend\n\n\n@n: 2\n$/);
    expect(replayedExit.stdout).toBe(liveExit.stdout);
    expect([liveExit.status, replayedExit.status]).toEqual([5, 5]);
  });
});
