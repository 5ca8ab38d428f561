import type { AddressSpace } from '@int3/cpu';
import type { TaskRegs } from './task-regs.js';

/** Task states, as `ps` shows them. */
export type TaskState = 'running' | 'runnable' | 'blocked' | 'zombie' | 'dead';

/** `TASK_COMM_LEN`: a comm is at most 15 characters plus NUL. */
export const TASK_COMM_LEN = 16;

/** What a blocked task waits for, and what to hand back to its host call when it wakes. */
export interface Wait {
  /** The wait channel (a guest address, or a host-chosen key). */
  readonly channel: string;
  /** Computes the value the blocked host call returns (in rax) when the task runs again. */
  readonly resume: () => bigint;
  /** Virtual time at which the task wakes by itself (nanosleep), if any. */
  readonly until?: number;
}

/**
 * A host-side task: identity, scheduling state, and the machine context saved while it is not running.
 * The guest's `struct task_struct` (at `guestTask`) holds the data guest code and probes read.
 *
 * @see include/linux/sched.h struct task_struct
 */
export class Task {
  state: TaskState = 'runnable';
  /** Register file while not on a CPU. */
  context: TaskRegs | undefined;
  /** The CPU whose run queue holds the task. */
  cpu: number;
  /** What it waits for, while `blocked`. */
  wait: Wait | undefined;
  exitCode = 0;
  /** Signal that killed it, if any (11 = SIGSEGV). */
  killedBy: number | undefined;
  readonly children: Task[] = [];

  constructor(
    readonly pid: number,
    readonly tgid: number,
    public comm: string,
    readonly parent: Task | undefined,
    /** User address space, or the kernel space for kernel threads. */
    public mm: AddressSpace,
    /** Lowest address of the kernel stack (`THREAD_SIZE` bytes). */
    readonly kernelStack: bigint,
    /** Address of the guest `struct task_struct`. */
    public guestTask: bigint,
    cpu: number,
    readonly kernelThread: boolean,
  ) {
    this.cpu = cpu;
  }

  /** True once the task has exited (zombie or reaped). */
  get exited(): boolean {
    return this.state === 'zombie' || this.state === 'dead';
  }
}
