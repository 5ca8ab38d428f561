import type { Task } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import { workloadFailures } from './workload-failures.js';

const task = (comm: string, exitCode: number, killedBy?: number) =>
  ({ comm, pid: 1, exited: true, exitCode, killedBy }) as unknown as Task;

describe(workloadFailures, () => {
  it('should name a workload that exited non-zero with its exit code, from the wait status', () => {
    expect(workloadFailures([task('cat', 1 << 8)])).toEqual(['workload "cat" (pid 1) exited with status 1']);
    expect(workloadFailures([task('cat', 0)])).toEqual([]);
  });

  it('should name a workload killed by a signal, but not fault killed by its SIGSEGV', () => {
    expect(workloadFailures([task('spin', 0, 9)])).toEqual(['workload "spin" (pid 1) was killed by SIGKILL']);
    expect(workloadFailures([task('hello', 11)])).toEqual(['workload "hello" (pid 1) was killed by SIGSEGV']);
    expect(workloadFailures([task('fault', 0, 11)])).toEqual([]);
  });

  it('should leave out a workload still running', () => {
    expect(workloadFailures([{ ...task('spin', 0), exited: false } as Task])).toEqual([]);
  });
});
