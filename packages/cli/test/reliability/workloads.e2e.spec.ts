// Reliability (issue 13 §4): a workload that fails is not a successful run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { int3, lines } from '../int3.js';

// Each case spawns the CLI, a few times: on a loaded machine that takes minutes, not seconds.
vi.setConfig({ testTimeout: 240_000 });

const dir = mkdtempSync(join(tmpdir(), 'int3-workloads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const OPEN = 'p:open do_sys_open filename=+0(%si):string';

describe('a workload that fails', () => {
  it('should print the trace, name the workload and its status on stderr, and exit 1 (trace, record, replay)', () => {
    const log = join(dir, 'fail.int3log');
    for (const args of [
      ['trace', '-e', OPEN, '--run', 'cat /nonexistent', '--run', 'hello'],
      ['record', '-o', log, '-e', OPEN, '--run', 'cat /nonexistent', '--run', 'hello'],
      ['replay', log],
    ]) {
      const r = int3(args);
      expect(lines(r.stdout), args[0]).toContainEqual(expect.stringMatching(/ open: .*filename="\/nonexistent"$/));
      expect(r.stderr, args[0]).toBe('int3: the run failed: workload "cat" (pid 1) exited with status 1\n');
      expect(r.status, args[0]).toBe(1);
    }
  });

  it('should not count fault, whose SIGSEGV is its point, as a failure', () => {
    const r = int3(['trace', '--run', 'fault']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
