import { AddressSpace, PageFlags } from '@int3/cpu';
import type { KernelImage } from '../boot/kernel-image.js';
import type { MachineEvents } from '../events/machine-events.js';
import { KernelError } from '../kernel-error.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import type { ObjectAllocator } from '../mm/object-allocator.js';
import type { Scheduler } from '../sched/scheduler.js';
import type { Task } from '../sched/task.js';
import { userTaskRegs } from '../sched/task-regs.js';
import type { TaskStacks } from '../sched/task-stacks.js';
import { checkExecArgs, USER_STACK_SIZE } from './check-exec-args.js';
import type { Clock } from './cpu-clocks.js';
import type { GuestCalls } from './kernel-api.js';
import type { ProgramCache } from './program-cache.js';
import { buildUserStack } from './user-stack.js';

/** What {@link spawnWorkload} needs of the kernel around it. */
export interface SpawnHost {
  /** Finds a workload's ELF by program name. */
  readonly programs: (name: string) => Uint8Array | undefined;
  /** Loaded programs (derived from the program bytes alone, so never snapshotted). */
  readonly cache: ProgramCache;
  readonly image: KernelImage;
  /** The kernel address space. */
  readonly space: AddressSpace;
  /** Address of each CPU's `pcpu_hot`. */
  readonly pcpu: readonly bigint[];
  readonly heap: Pick<ObjectAllocator, 'alloc' | 'free'>;
  readonly guest: Pick<GuestCalls, 'call'>;
  readonly sched: Pick<Scheduler, 'runQueues' | 'add'>;
  readonly stacks: Pick<TaskStacks, 'newTask'>;
  /** Runs one round (while another CPU holds the big kernel lock). */
  runRound(): void;
  readonly clock: Clock;
  readonly events: Pick<MachineEvents, 'emitTask'>;
}

/**
 * Starts a workload: `argv[0]` names a program of the image package (`cat`, `fork`, …). The task is
 * created in the guest (`int3_task_create`), its ELF is loaded into a fresh address space (read-only
 * pages shared with the other tasks of that program), and it becomes runnable in user mode at its
 * entry point. An argv over the guest's `ARG_MAX` is `E2BIG`, as execve refuses it.
 *
 * @see image/ABI.md §6.1
 */
export function spawnWorkload(m: SpawnHost, argv: readonly string[]): Task {
  checkExecArgs(argv);
  const name = argv[0];
  const bytes = name === undefined ? undefined : m.programs(name);
  if (!bytes) throw new KernelError('ENOENT', `no such workload: ${name ?? '(none)'}`);
  const mm = new AddressSpace(m.space);
  const elf = m.cache.load(name, bytes, mm);
  // int3_task_create takes the big kernel lock: wait until no CPU holds it.
  let spins = 0;
  while (m.space.readU32(m.image.symbols.kernel_flag) !== 0) {
    if (++spins > 100_000) throw new KernelError('RUNAWAY', 'the big kernel lock is never released');
    m.runRound();
  }
  const cpu = m.sched.runQueues.pickCpu();
  const comm = name.slice(0, 15);
  const commAddr = m.heap.alloc(16);
  m.space.write(commAddr, new TextEncoder().encode(`${comm}\0`));
  const guestTask = m.guest.call(cpu, m.image.symbols.int3_task_create, [commAddr], {
    asTask: m.image.symbols.init_task,
  });
  m.heap.free(commAddr);
  if (guestTask === 0n) throw new KernelError('ENOMEM', `int3_task_create(${comm}) failed`);
  const stackTop = KernelLayout.USER_STACK_TOP;
  mm.map(
    stackTop - BigInt(USER_STACK_SIZE),
    USER_STACK_SIZE,
    PageFlags.Present | PageFlags.Writable | PageFlags.User | PageFlags.NoExecute,
  );
  const rsp = buildUserStack(mm, stackTop, argv);
  const task = m.stacks.newTask(guestTask, comm, undefined, mm, cpu);
  task.context = userTaskRegs({ rip: elf.entry, rsp, kernelGsBase: m.pcpu[cpu] });
  m.sched.add(task);
  m.events.emitTask({ type: 'task:created', at: m.clock.clock(cpu), cpu, pid: task.pid, comm, ppid: 0 });
  return task;
}
