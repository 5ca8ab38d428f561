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

/** Where a {@link Task} reports changes to the fields the state hash covers. */
export interface TaskChanges {
  changed(task: Task): void;
}

/**
 * A host-side task: identity, scheduling state, and the machine context saved while it is not running.
 * The guest's `struct task_struct` (at `guestTask`) holds the data guest code and probes read.
 *
 * @see include/linux/sched.h struct task_struct
 */
export class Task {
  private _state: TaskState = 'runnable';
  private _context: TaskRegs | undefined;
  private _cpu: number;
  private _exitCode = 0;
  private _mm: AddressSpace;
  /** Told when a field the state hash covers changes (see {@link reportChangesTo}). */
  private changes: TaskChanges | undefined;
  /** What it waits for, while `blocked`. */
  wait: Wait | undefined;
  /** Signal that killed it, if any (11 = SIGSEGV). */
  killedBy: number | undefined;
  readonly children: Task[] = [];

  constructor(
    readonly pid: number,
    readonly tgid: number,
    public comm: string,
    readonly parent: Task | undefined,
    /** User address space, or the kernel space for kernel threads. */
    mm: AddressSpace,
    /** Lowest address of the kernel stack (`THREAD_SIZE` bytes). */
    readonly kernelStack: bigint,
    /** Address of the guest `struct task_struct`. */
    public guestTask: bigint,
    cpu: number,
    readonly kernelThread: boolean,
  ) {
    this._cpu = cpu;
    this._mm = mm;
  }

  get state(): TaskState {
    return this._state;
  }
  set state(s: TaskState) {
    this._state = s;
    this.changes?.changed(this);
  }

  /** Register file while not on a CPU. */
  get context(): TaskRegs | undefined {
    return this._context;
  }
  set context(c: TaskRegs | undefined) {
    this._context = c;
    this.changes?.changed(this);
  }

  /** The CPU whose run queue holds the task. */
  get cpu(): number {
    return this._cpu;
  }
  set cpu(c: number) {
    this._cpu = c;
    this.changes?.changed(this);
  }

  get exitCode(): number {
    return this._exitCode;
  }
  set exitCode(c: number) {
    this._exitCode = c;
    this.changes?.changed(this);
  }

  /** User address space, or the kernel space for kernel threads. */
  get mm(): AddressSpace {
    return this._mm;
  }
  set mm(m: AddressSpace) {
    this._mm = m;
    this.changes?.changed(this);
  }

  /**
   * From now on, tells `changes` whenever the state, saved registers, CPU, exit code or address space
   * change — what the state hash covers of a task, so that a checkpoint visits the tasks that changed,
   * not every task. The scheduler does this when the task joins it.
   */
  reportChangesTo(changes: TaskChanges): void {
    this.changes = changes;
    changes.changed(this);
  }

  /** True once the task has exited (zombie or reaped). */
  get exited(): boolean {
    return this.state === 'zombie' || this.state === 'dead';
  }
}
