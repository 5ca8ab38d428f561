import type { AddressSpace } from '@int3/cpu';
import type { Task, TaskState, Wait } from './task.js';
import type { TaskRegs } from './task-regs.js';

/**
 * The mutable fields of a {@link Task}, copied. Saved registers and waits are immutable objects, so
 * they are shared; the address space is kept by identity (its pages are saved with the machine's).
 */
export interface TaskSnapshot {
  readonly task: Task;
  readonly state: TaskState;
  readonly context: TaskRegs | undefined;
  readonly cpu: number;
  readonly wait: Wait | undefined;
  readonly exitCode: number;
  readonly killedBy: number | undefined;
  readonly children: readonly Task[];
  readonly comm: string;
  readonly mm: AddressSpace;
  readonly guestTask: bigint;
}

/** Copies the mutable fields of `task`. */
export function captureTask(task: Task): TaskSnapshot {
  return Object.freeze({
    task,
    state: task.state,
    context: task.context,
    cpu: task.cpu,
    wait: task.wait,
    exitCode: task.exitCode,
    killedBy: task.killedBy,
    children: Object.freeze([...task.children]),
    comm: task.comm,
    mm: task.mm,
    guestTask: task.guestTask,
  });
}

/** Puts the saved fields back into the same task object, so references to it stay valid. */
export function restoreTask(s: TaskSnapshot): Task {
  const t = s.task;
  t.state = s.state;
  t.context = s.context;
  t.cpu = s.cpu;
  t.wait = s.wait;
  t.exitCode = s.exitCode;
  t.killedBy = s.killedBy;
  t.children.length = 0;
  for (const c of s.children) t.children.push(c);
  t.comm = s.comm;
  t.mm = s.mm;
  t.guestTask = s.guestTask;
  return t;
}
