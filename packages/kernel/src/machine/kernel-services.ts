import { AddressSpace, type Cpu, PageFlags } from '@int3/cpu';
import { PT_REGS_NAMES } from '../arch/x86/pt-regs-layout.js';
import type { KernelImage } from '../boot/kernel-image.js';
import type { MachineEvents } from '../events/machine-events.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import type { ObjectAllocator } from '../mm/object-allocator.js';
import type { Scheduler } from '../sched/scheduler.js';
import { userTaskRegs } from '../sched/task-regs.js';
import type { TaskStacks } from '../sched/task-stacks.js';
import type { Clock } from './cpu-clocks.js';
import { exitMm } from './exit-mm.js';
import type { HostCallHandler, HostCalls } from './host-calls.js';
import type { KernelPanic } from './kernel-panic.js';

const EAGAIN = -11;
const ENOMEM = -12;
const EXIT_DEAD = 16;
/** Largest `host_alloc` request (kmalloc's own limit is checked in the guest). */
const MAX_ALLOC = 4 * 1024 * 1024;
/** `struct task_struct` offsets the host reads (image/ABI.md §5). */
const TaskStruct = { pid: 8, comm: 16, exitState: 52 } as const;

const decoder = new TextDecoder();

/** What the kernel services need: the image's gates and symbols, memory, CPUs, tasks, the clock, events. */
export interface KernelServicesHost {
  readonly image: KernelImage;
  /** The kernel address space. */
  readonly space: AddressSpace;
  readonly cpus: readonly Cpu[];
  /** Address of each CPU's `pcpu_hot`. */
  readonly pcpu: readonly bigint[];
  /** kmalloc / kfree. */
  readonly heap: Pick<ObjectAllocator, 'alloc' | 'free'>;
  readonly hostCalls: Pick<HostCalls, 'bind'>;
  readonly sched: Pick<Scheduler, 'tasks' | 'current' | 'runQueues' | 'add' | 'wake' | 'retire'>;
  readonly stacks: TaskStacks;
  readonly clock: Clock;
  readonly events: Pick<MachineEvents, 'log' | 'writeConsole' | 'emitTask'>;
  readonly panic: Pick<KernelPanic, 'panic'>;
}

/**
 * Binds the image's `host_*` gates (image/ABI.md §3) to their services. A gate the image declares but
 * the host does not implement, or the reverse, is an image mismatch and refused at boot.
 */
export function bindKernelServices(m: KernelServicesHost): void {
  const services: Record<string, HostCallHandler> = {
    alloc: (ctx) => {
      const size = ctx.arg(0);
      return size === 0n || size > BigInt(MAX_ALLOC) ? 0n : m.heap.alloc(Number(size));
    },
    free: (ctx) => {
      m.heap.free(ctx.arg(0));
      return undefined;
    },
    log_store: (ctx) => {
      const len = Number(ctx.arg(2));
      const text = decoder.decode(m.cpus[ctx.cpu].addressSpace.read(ctx.arg(1), len));
      m.events.log(ctx.cpu, Number(ctx.arg(0) & 7n), text);
      return len;
    },
    console_write: (ctx) => {
      const len = Number(ctx.arg(1));
      const pid = m.sched.current[ctx.cpu]?.pid ?? 0;
      m.events.writeConsole(ctx.cpu, pid, m.cpus[ctx.cpu].addressSpace.read(ctx.arg(0), len));
      return len;
    },
    schedule: () => ({ yield: true }),
    wait: (ctx) => {
      const uaddr = ctx.arg(0);
      const val = Number(ctx.arg(1) & 0xffffffffn);
      if (m.cpus[ctx.cpu].addressSpace.readU32(uaddr) !== val) return EAGAIN;
      return { block: { channel: `futex:${uaddr.toString(16)}`, resume: () => 0n } };
    },
    wake: (ctx) => m.sched.wake(`futex:${ctx.arg(0).toString(16)}`),
    task_fork: (ctx) => fork(m, ctx.cpu, ctx.arg(0), ctx.arg(1)),
    task_exit: (ctx) => exit(m, ctx.cpu, ctx.arg(0)),
    sleep_ns: (ctx) => {
      // No task on the CPU: a host-to-guest call that sleeps (a module's init), as the boot task.
      const pid = m.sched.current[ctx.cpu]?.pid ?? 0;
      const until = m.clock.clock(ctx.cpu) + Number(ctx.arg(0));
      return { block: { channel: `sleep:${pid}`, resume: () => 0n, until } };
    },
    clock_ns: (ctx) => BigInt(m.clock.clock(ctx.cpu)),
    panic: (ctx) => {
      const msg = decoder.decode(m.cpus[ctx.cpu].addressSpace.read(ctx.arg(0), Number(ctx.arg(1))));
      m.panic.panic(ctx.cpu, msg);
      m.sched.retire(ctx.cpu);
      return { exit: -1 };
    },
  };
  const declared = [...m.image.gates.keys()];
  const unknown = declared.filter((g) => !(g in services));
  const missing = Object.keys(services).filter((g) => !m.image.gates.has(g));
  if (unknown.length > 0 || missing.length > 0) {
    const parts = [];
    if (unknown.length) parts.push(`unknown gates ${unknown.map((g) => `host_${g}`).join(', ')}`);
    if (missing.length) parts.push(`missing gates ${missing.map((g) => `host_${g}`).join(', ')}`);
    throw new Error(`${m.image.elf.name}: host/guest ABI mismatch: ${parts.join('; ')}`);
  }
  for (const [name, address] of m.image.gates) m.hostCalls.bind(name, address, services[name]);
}

/**
 * `host_task_fork(child, regs)`: copies the parent's user address space (sharing its read-only pages)
 * and makes the child runnable in user mode straight from `regs` (image/ABI.md §6.2).
 */
function fork(m: KernelServicesHost, cpu: number, child: bigint, regsAddr: bigint): bigint | number {
  const parent = m.sched.current[cpu];
  if (!parent) return EAGAIN;
  const comm = m.space.readCString(child + BigInt(TaskStruct.comm), 16);
  const mm = new AddressSpace(m.space);
  for (const page of parent.mm.pages()) {
    if (page.address >= KernelLayout.KERNEL_HALF) continue;
    if ((page.flags & (PageFlags.Writable | PageFlags.Gate)) === 0) {
      // Read-only pages (text) are shared, as the child maps the same page-cache pages.
      mm.share(parent.mm, page.address, page.data.length);
    } else {
      mm.mapCopy(page.address, page.data, page.flags & ~PageFlags.Gate);
    }
  }
  const childCpu = m.sched.runQueues.pickCpu();
  let task: ReturnType<TaskStacks['newTask']>;
  try {
    task = m.stacks.newTask(child, comm, parent, mm, childCpu);
  } catch {
    return ENOMEM;
  }
  const r = (name: (typeof PT_REGS_NAMES)[number]) =>
    m.space.readU64(regsAddr + BigInt(PT_REGS_NAMES.indexOf(name) * 8));
  const gpr = [
    r('ax'),
    r('cx'),
    r('dx'),
    r('bx'),
    r('sp'),
    r('bp'),
    r('si'),
    r('di'),
    r('r8'),
    r('r9'),
    r('r10'),
    r('r11'),
    r('r12'),
    r('r13'),
    r('r14'),
    r('r15'),
  ];
  task.context = userTaskRegs({
    rip: r('ip'),
    rsp: r('sp'),
    gpr,
    rflags: Number(r('flags') & 0xffffffffn),
    fsBase: m.cpus[cpu].fsBase,
    kernelGsBase: m.pcpu[childCpu],
  });
  parent.children.push(task);
  m.sched.add(task);
  m.events.emitTask({
    type: 'task:created',
    at: m.clock.clock(cpu),
    cpu: childCpu,
    pid: task.pid,
    comm,
    ppid: parent.pid,
  });
  return 0n;
}

/**
 * `host_task_exit(code)`: the task leaves its CPU for good, then the big kernel lock is released, its
 * kernel stack freed, and its `task_struct` too when nobody will reap it (image/ABI.md §6.3).
 */
function exit(m: KernelServicesHost, cpu: number, code: bigint): { exit: number } {
  const task = m.sched.retire(cpu);
  const status = Number(BigInt.asIntN(32, code));
  m.space.writeU32(m.image.symbols.kernel_flag, 0);
  if (!task) return { exit: status };
  m.stacks.free(task);
  exitMm(task.mm);
  if (m.space.readU32(task.guestTask + BigInt(TaskStruct.exitState)) === EXIT_DEAD) m.heap.free(task.guestTask);
  task.exitCode = status;
  task.state = 'dead';
  m.sched.tasks.delete(task.pid);
  m.events.emitTask({ type: 'task:exited', at: m.clock.clock(cpu), cpu, pid: task.pid, comm: task.comm, status });
  return { exit: status };
}
