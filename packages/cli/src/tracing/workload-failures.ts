import { Signal, type Task } from '@int3/kernel';

const SIGNAL_NAMES = new Map<number, string>(Object.entries(Signal).map(([name, n]) => [n, name]));

const signalName = (n: number) => SIGNAL_NAMES.get(n) ?? `signal ${n}`;

/**
 * What went wrong with the workloads a run started, one phrase each (`"cat" (pid 1) exited with
 * status 1`, `"spin" (pid 2) was killed by SIGKILL`): a workload whose wait status says it exited
 * non-zero or was killed by a signal failed, as a shell's `$?` says — except `fault`, whose SIGSEGV is
 * its point (the sample workload documents it). A task's `exitCode` is its wait status: the exit
 * code in bits 8-15, a terminating signal in bits 0-6.
 *
 * @see include/uapi/linux/wait.h, kernel/exit.c do_exit() (`(code & 0xff) << 8`)
 * @param tasks the tasks `input:spawn` started
 */
export function workloadFailures(tasks: readonly Task[]): string[] {
  const failures: string[] = [];
  for (const task of tasks) {
    if (!task.exited) continue;
    const name = `${JSON.stringify(task.comm)} (pid ${task.pid})`;
    const signo = task.killedBy ?? task.exitCode & 0x7f;
    if (signo !== 0) {
      if (task.comm === 'fault' && signo === Signal.SIGSEGV) continue;
      failures.push(`workload ${name} was killed by ${signalName(signo)}`);
    } else if (((task.exitCode >> 8) & 0xff) !== 0) {
      failures.push(`workload ${name} exited with status ${(task.exitCode >> 8) & 0xff}`);
    }
  }
  return failures;
}
