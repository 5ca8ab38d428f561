import { type AddressSpace, type Cpu, Reg, Selector } from '@int3/cpu';
import type { TaskEvent } from '../events/kernel-event.js';
import type { Clock } from '../machine/cpu-clocks.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import type { Task } from './task.js';

/** What {@link killCurrent} needs: the CPUs with their per-CPU areas, `current`, `do_exit`, and where to report. */
export interface KillCurrentHost {
  readonly cpus: readonly Cpu[];
  /** Address of each CPU's `pcpu_hot`. */
  readonly pcpu: readonly bigint[];
  /** The kernel address space (kernel stacks live there). */
  readonly space: AddressSpace;
  readonly current: readonly (Task | undefined)[];
  /** The guest's `do_exit`. */
  readonly doExit: bigint;
  readonly clock: Clock;
  emitTask(e: TaskEvent): void;
}

/**
 * Kills the current task of `cpu` with `signo`: the CPU enters the kernel on a reset kernel stack at
 * the guest's `do_exit(signo)`, as a fatal signal or `make_task_dead()` ends a task.
 *
 * @see arch/x86/kernel/dumpstack.c make_task_dead(); kernel/exit.c do_exit()
 */
export function killCurrent(host: KillCurrentHost, cpu: number, signo: number): void {
  const task = host.current[cpu];
  if (!task) return;
  const c = host.cpus[cpu];
  if (c.cpl === 3) {
    // Enter the kernel as the syscall path would: swap GS so GS_BASE is the per-CPU area.
    c.kernelGsBase = c.gsBase;
    c.gsBase = host.pcpu[cpu];
  }
  c.cs = Selector.KERNEL_CS;
  c.ss = Selector.KERNEL_DS;
  c.rflags = 0x2;
  const top = task.kernelStack + BigInt(KernelLayout.THREAD_SIZE) - 8n;
  host.space.writeU64(top, 0n);
  c.setReg(Reg.RSP, top);
  c.setReg(Reg.RBP, 0n);
  c.setReg(Reg.RDI, BigInt(signo));
  c.rip = host.doExit;
  task.killedBy = signo;
  host.emitTask({ type: 'task:signalled', at: host.clock.clock(cpu), cpu, pid: task.pid, comm: task.comm, signo });
}
