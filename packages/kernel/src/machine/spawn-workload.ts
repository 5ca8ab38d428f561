import { AddressSpace, PageFlags } from '@int3/cpu';
import { KernelError } from '../kernel-error.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import type { Task } from '../sched/task.js';
import { userTaskRegs } from '../sched/task-regs.js';
import { checkExecArgs, USER_STACK_SIZE } from './check-exec-args.js';
import type { Machine } from './machine.js';
import { ProgramCache } from './program-cache.js';
import { buildUserStack } from './user-stack.js';

/** Each machine's loaded programs (derived from the program bytes alone, so never snapshotted). */
const caches = new WeakMap<Machine, ProgramCache>();

/**
 * Starts a workload: `argv[0]` names a program of the image package (`cat`, `fork`, …). The task is
 * created in the guest (`int3_task_create`), its ELF is loaded into a fresh address space (read-only
 * pages shared with the other tasks of that program), and it becomes runnable in user mode at its
 * entry point. An argv over the guest's `ARG_MAX` is `E2BIG`, as execve refuses it.
 *
 * @see image/ABI.md §6.1
 */
export function spawnWorkload(
  m: Machine,
  argv: readonly string[],
  programs: (name: string) => Uint8Array | undefined,
): Task {
  checkExecArgs(argv);
  const name = argv[0];
  const bytes = name === undefined ? undefined : programs(name);
  if (!bytes) throw new KernelError('ENOENT', `no such workload: ${name ?? '(none)'}`);
  let cache = caches.get(m);
  if (cache === undefined) {
    cache = new ProgramCache(m.space);
    caches.set(m, cache);
  }
  const mm = new AddressSpace(m.space);
  const elf = cache.load(name, bytes, mm);
  // int3_task_create takes the big kernel lock: wait until no CPU holds it.
  let spins = 0;
  while (m.space.readU32(m.image.symbols.kernel_flag) !== 0) {
    if (++spins > 100_000) throw new KernelError('RUNAWAY', 'the big kernel lock is never released');
    m.runRound();
  }
  const cpu = m.sched.runQueues.pickCpu();
  const comm = name.slice(0, 15);
  const commAddr = m.memory.heap.alloc(16);
  m.space.write(commAddr, new TextEncoder().encode(`${comm}\0`));
  const guestTask = m.guest.call(cpu, m.image.symbols.int3_task_create, [commAddr], {
    asTask: m.image.symbols.init_task,
  });
  m.memory.heap.free(commAddr);
  if (guestTask === 0n) throw new KernelError('ENOMEM', `int3_task_create(${comm}) failed`);
  const stackTop = KernelLayout.USER_STACK_TOP;
  mm.map(
    stackTop - BigInt(USER_STACK_SIZE),
    USER_STACK_SIZE,
    PageFlags.Present | PageFlags.Writable | PageFlags.User | PageFlags.NoExecute,
  );
  const rsp = buildUserStack(mm, stackTop, argv);
  const task = m.newTask(guestTask, comm, undefined, mm, cpu);
  task.context = userTaskRegs({ rip: elf.entry, rsp, kernelGsBase: m.pcpu[cpu] });
  m.sched.add(task);
  m.emitTask({ type: 'task:created', at: m.clock(cpu), cpu, pid: task.pid, comm, ppid: 0 });
  return task;
}
