import type { Task } from './task.js';

/**
 * Per-CPU run queues with round-robin order: deterministic, so the same inputs give the same
 * interleaving bit for bit. A new task goes to the CPU with the fewest queued tasks (lowest index on
 * ties); a task stays on its CPU afterwards.
 *
 * @see kernel/sched/core.c (roles of enqueue_task/pick_next_task), not CFS's policy
 */
export class RunQueues {
  private readonly queues: Task[][];

  constructor(readonly ncpus: number) {
    this.queues = Array.from({ length: ncpus }, () => []);
  }

  /** The CPU a new task should run on. */
  pickCpu(): number {
    let best = 0;
    for (let c = 1; c < this.ncpus; c++) if (this.queues[c].length < this.queues[best].length) best = c;
    return best;
  }

  /** Queues a runnable task at the tail of its CPU's queue. */
  enqueue(task: Task): void {
    const q = this.queues[task.cpu];
    if (!q.includes(task)) q.push(task);
  }

  /** Removes a task from its queue (it blocked or exited). */
  dequeue(task: Task): void {
    const q = this.queues[task.cpu];
    const i = q.indexOf(task);
    if (i >= 0) q.splice(i, 1);
  }

  /** The next task to run on `cpu` (head of the queue), removed from the queue. */
  next(cpu: number): Task | undefined {
    return this.queues[cpu].shift();
  }

  /** Number of tasks waiting to run on `cpu`. */
  length(cpu: number): number {
    return this.queues[cpu].length;
  }

  /** Every CPU's queue, head first, copied (for machine snapshots). */
  save(): readonly (readonly Task[])[] {
    return Object.freeze(this.queues.map((q) => Object.freeze([...q])));
  }

  /** Puts back the queues of a {@link save}. */
  restore(state: readonly (readonly Task[])[]): void {
    state.forEach((q, cpu) => {
      this.queues[cpu] = [...q];
    });
  }

  /** Queued tasks of `cpu`, head first. */
  queued(cpu: number): readonly Task[] {
    return this.queues[cpu];
  }
}
