import type { AddressSpace, Cpu } from '@int3/cpu';
import { KernelLayout } from '../mm/kernel-layout.js';
import { RunQueues } from './run-queues.js';
import type { Task, TaskChanges, Wait } from './task.js';
import { loadTaskRegs, saveTaskRegs } from './task-regs.js';
import { captureTask, restoreTask, type TaskSnapshot } from './task-snapshot.js';

/** `struct pcpu_hot` offsets (image/ABI.md §2). */
export const PcpuHot = { self: 0, currentTask: 8, topOfStack: 16, userRsp: 24, cpuNumber: 32 } as const;

/** What the scheduler needs of the machine. */
export interface SchedulerHost {
  readonly cpus: readonly Cpu[];
  /** Address of each CPU's `pcpu_hot`. */
  readonly pcpu: readonly bigint[];
  /** The kernel address space (per-CPU areas live there). */
  readonly space: AddressSpace;
}

/** The scheduler as a machine's users see it: the live tasks and what runs on each CPU, read-only. */
export interface SchedulerView {
  /** Live tasks by pid. */
  readonly tasks: ReadonlyMap<number, Task>;
  /** The task running on each CPU (undefined while it idles). */
  readonly current: readonly (Task | undefined)[];
  /** Whether any task is ready to run (queued, or current on a CPU). */
  anyRunnable(): boolean;
  /** The virtual time of the earliest sleeper's wake-up, if any. */
  nextWakeup(): number | undefined;
  /**
   * The tasks that changed what the state hash covers of them, joined or left `tasks` since the last
   * call (one reader only: the machine's state hasher).
   */
  takeChangedTasks(): ReadonlySet<Task> | 'all';
}

/** Everything a {@link Scheduler} knows, copied: tasks with every field, in order (for machine snapshots). */
export interface SchedulerState {
  /** Live tasks, in the order of `tasks`. */
  readonly tasks: readonly TaskSnapshot[];
  /** Tasks that a CPU, queue or wait list still holds but `tasks` no longer does. */
  readonly others: readonly TaskSnapshot[];
  readonly current: readonly (Task | undefined)[];
  readonly queues: readonly (readonly Task[])[];
  readonly needResched: readonly boolean[];
  /** Blocked tasks by wait channel, each list in wake-up order. */
  readonly waiters: readonly (readonly [string, readonly Task[]])[];
  readonly sleepers: readonly Task[];
}

/**
 * Which task runs where: per-CPU current task, run queues, blocked tasks by wait channel, sleepers.
 * Context switches happen only where the guest kernel allows them (image/ABI.md §6.2): at CPL3, or
 * while the task is blocked inside a gate. A switch saves the outgoing registers, loads the incoming
 * ones, its address space, and points the CPU's `pcpu_hot` at it — what `switch_to` does.
 *
 * @see kernel/sched/core.c __schedule(), context_switch()
 * @see arch/x86/kernel/process_64.c __switch_to()
 */
export class Scheduler implements SchedulerView {
  readonly tasks = new Map<number, Task>();
  readonly current: (Task | undefined)[];
  readonly runQueues: RunQueues;
  /** Set by the timer tick; honoured at the next point where the running task may be switched. */
  readonly needResched: boolean[];
  private readonly waiters = new Map<string, Task[]>();
  private sleepers: Task[] = [];
  /** Tasks whose hashed fields changed, or that joined or left {@link tasks}, since the last take. */
  private changed = new Set<Task>();
  /**
   * Set when {@link changed} outgrew the table (tasks came and went with nobody taking the set: a
   * long run of forks between checkpoints): the set is dropped, so it holds no exited task, and the
   * next take answers `'all'`.
   */
  private overflowed = false;
  private readonly changes: TaskChanges = {
    changed: (t) => {
      if (this.overflowed) return;
      this.changed.add(t);
      if (this.changed.size > 2 * this.tasks.size + 4096) {
        this.changed = new Set();
        this.overflowed = true;
      }
    },
  };

  constructor(private readonly host: SchedulerHost) {
    const n = host.cpus.length;
    this.current = new Array(n).fill(undefined);
    this.runQueues = new RunQueues(n);
    this.needResched = new Array(n).fill(false);
  }

  /** The scheduler's state, deep-copied (task objects are kept by identity, their fields copied). */
  save(): SchedulerState {
    const held = new Set<Task>([...this.current, ...this.sleepers].filter((t) => t !== undefined));
    for (const q of this.runQueues.save()) for (const t of q) held.add(t);
    for (const list of this.waiters.values()) for (const t of list) held.add(t);
    for (const t of this.tasks.values()) held.delete(t);
    return Object.freeze({
      tasks: Object.freeze([...this.tasks.values()].map(captureTask)),
      others: Object.freeze([...held].map(captureTask)),
      current: Object.freeze([...this.current]),
      queues: this.runQueues.save(),
      needResched: Object.freeze([...this.needResched]),
      waiters: Object.freeze(
        [...this.waiters].map(([ch, list]) => Object.freeze([ch, Object.freeze([...list])] as const)),
      ),
      sleepers: Object.freeze([...this.sleepers]),
    });
  }

  /** Puts back a state from {@link save}: the same task objects, with their saved fields. */
  restore(state: SchedulerState): void {
    for (const t of this.tasks.values()) this.changed.add(t);
    this.tasks.clear();
    for (const s of state.tasks) this.tasks.set(s.task.pid, restoreTask(s));
    for (const s of state.others) restoreTask(s);
    state.current.forEach((t, cpu) => {
      this.current[cpu] = t;
    });
    this.runQueues.restore(state.queues);
    state.needResched.forEach((v, cpu) => {
      this.needResched[cpu] = v;
    });
    this.waiters.clear();
    for (const [ch, list] of state.waiters) this.waiters.set(ch, [...list]);
    this.sleepers = [...state.sleepers];
  }

  /** Adds a new runnable task to its CPU's queue. */
  add(task: Task): void {
    this.tasks.set(task.pid, task);
    task.reportChangesTo(this.changes);
    task.state = 'runnable';
    this.runQueues.enqueue(task);
  }

  /**
   * Returns the tasks that may have changed what the state hash covers of them (state, saved
   * registers, CPU, exit code, address space), joined {@link tasks} or left it, since the last call,
   * and starts a new set. A task leaves the table only after its state changed (to `dead`), so it is
   * among them; a restore reports every task of the table before and after. `'all'` when more
   * tasks changed than the set keeps: the caller must then look at every task it knows of.
   */
  takeChangedTasks(): ReadonlySet<Task> | 'all' {
    if (this.overflowed) {
      this.overflowed = false;
      return 'all';
    }
    const taken = this.changed;
    if (taken.size > 0) this.changed = new Set();
    return taken;
  }

  /** Puts the next queued task of `cpu` on it; returns it, or undefined when the queue is empty. */
  switchIn(cpu: number): Task | undefined {
    const task = this.runQueues.next(cpu);
    if (!task) return undefined;
    const c = this.host.cpus[cpu];
    loadTaskRegs(c, task.context!);
    c.addressSpace = task.mm;
    const pcpu = this.host.pcpu[cpu];
    this.host.space.writeU64(pcpu + BigInt(PcpuHot.currentTask), task.guestTask);
    this.host.space.writeU64(pcpu + BigInt(PcpuHot.topOfStack), task.kernelStack + BigInt(KernelLayout.THREAD_SIZE));
    // GS: the per-CPU area is the kernel GS base of the CPU the task now runs on.
    if (c.cpl === 3) c.kernelGsBase = pcpu;
    else c.gsBase = pcpu;
    const wait = task.wait;
    task.wait = undefined;
    task.state = 'running';
    this.current[cpu] = task;
    this.needResched[cpu] = false;
    // A task that blocked in a gate resumes with the gate's result in rax.
    if (wait) c.setReg(0, BigInt.asUintN(64, wait.resume()));
    return task;
  }

  /** Takes the running task off `cpu`, saving its registers; requeues it when still runnable. */
  switchOut(cpu: number): Task | undefined {
    const task = this.current[cpu];
    if (!task) return undefined;
    task.context = saveTaskRegs(this.host.cpus[cpu]);
    this.current[cpu] = undefined;
    if (task.state === 'running') {
      task.state = 'runnable';
      this.runQueues.enqueue(task);
    }
    return task;
  }

  /** Blocks the running task of `cpu` on `wait` (its gate call already completed up to the result). */
  block(cpu: number, wait: Wait): void {
    const task = this.current[cpu];
    if (!task) throw new Error(`scheduler: no task to block on CPU ${cpu}`);
    task.state = 'blocked';
    task.wait = wait;
    this.switchOut(cpu);
    const list = this.waiters.get(wait.channel);
    if (list) list.push(task);
    else this.waiters.set(wait.channel, [task]);
    if (wait.until !== undefined) this.sleepers.push(task);
  }

  /** Makes every task blocked on `channel` runnable; returns how many. */
  wake(channel: string): number {
    const list = this.waiters.get(channel);
    if (!list) return 0;
    this.waiters.delete(channel);
    for (const t of list) this.makeRunnable(t);
    return list.length;
  }

  /** Wakes the sleepers of `cpu` whose time has come. */
  wakeSleepers(cpu: number, now: number): void {
    if (this.sleepers.length === 0) return;
    const due = this.sleepers.filter((t) => t.cpu === cpu && t.wait !== undefined && t.wait.until! <= now);
    for (const t of due) {
      if (t.wait) {
        const list = this.waiters.get(t.wait.channel);
        if (list) {
          const i = list.indexOf(t);
          if (i >= 0) list.splice(i, 1);
          if (list.length === 0) this.waiters.delete(t.wait.channel);
        }
        this.makeRunnable(t);
      }
    }
  }

  /** Earliest wake-up time of any sleeper, if there is one. */
  nextWakeup(): number | undefined {
    let min: number | undefined;
    for (const t of this.sleepers)
      if (t.wait?.until !== undefined && (min === undefined || t.wait.until < min)) min = t.wait.until;
    return min;
  }

  /** Removes the running task of `cpu` for good (it exited); its registers are discarded. */
  retire(cpu: number): Task | undefined {
    const task = this.current[cpu];
    if (!task) return undefined;
    this.current[cpu] = undefined;
    task.context = undefined;
    this.runQueues.dequeue(task);
    return task;
  }

  /** True when some CPU has a task running or queued. */
  anyRunnable(): boolean {
    for (let c = 0; c < this.current.length; c++) if (this.current[c] || this.runQueues.length(c) > 0) return true;
    return false;
  }

  /** Tasks blocked with no timeout. */
  blockedForever(): Task[] {
    return [...this.tasks.values()].filter((t) => t.state === 'blocked' && t.wait?.until === undefined);
  }

  private makeRunnable(task: Task): void {
    if (task.state !== 'blocked') return;
    this.sleepers = this.sleepers.filter((t) => t !== task);
    task.state = 'runnable';
    this.runQueues.enqueue(task);
  }
}
