import type { TaskEvent } from '@int3/kernel';
import type { Observable } from 'rxjs';

/**
 * A task as a tracer sees it, read-only. Linux's names: `pid` is the thread's id (what ftrace prints
 * as `common_pid`, bpftrace as `tid`), `tgid` its process's (bpftrace's `pid`).
 *
 * @see include/linux/sched.h struct task_struct (pid, tgid, comm); include/linux/sched.h task_cpu()
 */
export interface TracerTask {
  readonly pid: number;
  readonly tgid: number;
  /** The executable's name, at most 15 bytes (`TASK_COMM_LEN` − 1). */
  readonly comm: string;
  /** The CPU it runs (or last ran) on. */
  readonly cpu: number;
  /** Address of its `struct task_struct` in the guest (bpftrace's `curtask`). @see bpf_get_current_task() */
  readonly guestTask: bigint;
}

/**
 * Which task runs where, and the task lifecycle stream. `current(cpu)` returns the same object for as
 * long as the same task runs, so a tracer may cache by identity; it allocates nothing.
 *
 * @see arch/x86/include/asm/current.h current; include/linux/sched.h
 * @example
 * const comm = ctx.tasks.current(cpu)?.comm ?? '<idle>';
 */
export interface TracerTasks {
  /** The task running on `cpu`, undefined when it idles. */
  current(cpu: number): TracerTask | undefined;
  /** `task:created`, `task:exited`, `task:signalled`, as they happen. */
  readonly events$: Observable<TaskEvent>;
}
