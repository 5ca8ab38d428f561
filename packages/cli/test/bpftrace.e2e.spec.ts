// End-to-end tests of `int3 bpftrace` and `int3 replay --bpftrace`: the built binary, bpftrace's output
// on stdout, `Attached N probes` on stderr, bpftrace's error format, and a replay equal to the live run.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../src/temp-dir.fixture.js';
import { int3 } from './int3.js';

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
  });
});
