import { type AddressSpace, PAGE_SIZE, PageFlags } from '@int3/cpu';
import { KernelError } from '../kernel-error.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import type { PageAllocator } from '../mm/page-allocator.js';
import { Task } from './task.js';

const KERNEL_DATA = PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute;

/**
 * Host tasks and their kernel stacks: `THREAD_SIZE` bytes in the vmalloc area, each above an unmapped
 * guard page that turns an overflow into a #PF.
 *
 * @see kernel/fork.c alloc_thread_stack_node(), free_thread_stack()
 */
export class TaskStacks {
  constructor(
    private readonly space: AddressSpace,
    private readonly vmalloc: Pick<PageAllocator, 'alloc' | 'release'>,
  ) {}

  /** Creates the host side of a task whose guest `task_struct` is at `guestTask`. */
  newTask(guestTask: bigint, comm: string, parent: Task | undefined, mm: AddressSpace, cpu: number): Task {
    const pid = this.space.readU32(guestTask + 8n) | 0;
    const pages = KernelLayout.THREAD_SIZE / PAGE_SIZE;
    const base = this.vmalloc.alloc(pages + 1);
    if (base === undefined) throw new KernelError('ENOMEM', 'no room for a kernel stack');
    const stack = base + BigInt(PAGE_SIZE);
    this.space.map(stack, KernelLayout.THREAD_SIZE, KERNEL_DATA);
    return new Task(pid, pid, comm, parent, mm, stack, guestTask, cpu, false);
  }

  /** Releases a task's kernel stack (its address space goes with the task object). */
  free(task: Task): void {
    this.space.unmap(task.kernelStack, KernelLayout.THREAD_SIZE);
    this.vmalloc.release(task.kernelStack - BigInt(PAGE_SIZE));
  }
}
