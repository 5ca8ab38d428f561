/**
 * The x86-64 kernel virtual memory map, with Linux's addresses (4-level paging).
 *
 * @see Documentation/arch/x86/x86_64/mm.rst
 */
export const KernelLayout = {
  /** Start of the upper canonical half: kernel addresses are at or above it. */
  KERNEL_HALF: 0xffff800000000000n,
  /** The direct mapping of physical memory: where `kmalloc` objects live. */
  PAGE_OFFSET: 0xffff888000000000n,
  /** vmalloc/ioremap space: kernel stacks, per-CPU areas, the kmalloc heap. */
  VMALLOC_START: 0xffffc90000000000n,
  VMALLOC_END: 0xffffe8ffffffffffn,
  /** The kernel text mapping's start (`__START_KERNEL_map`); it ends at {@link MODULES_VADDR}. */
  START_KERNEL_MAP: 0xffffffff80000000n,
  /** Kernel text mapping (`__START_KERNEL_map` + 16 MiB). */
  KERNEL_TEXT: 0xffffffff81000000n,
  /** Module mapping space: modules, kprobes' instruction slots — within ±2 GiB of kernel text. */
  MODULES_VADDR: 0xffffffffa0000000n,
  MODULES_END: 0xffffffffff000000n,
  /** Top of a user stack (below the 47-bit user limit, one guard page left). */
  USER_STACK_TOP: 0x7ffffffff000n,
  /** Highest user address + 1 (`TASK_SIZE_MAX`). */
  TASK_SIZE: 0x7ffffffff000n,
  /** Per-CPU areas (`struct pcpu_hot`), one page per CPU. */
  PERCPU_BASE: 0xffffe80000000000n,
  /** Kernel stacks are `THREAD_SIZE` bytes (16 KiB on x86-64). */
  THREAD_SIZE: 16384,
} as const;

/** True when `address` is in the user half. */
export function isUserAddress(address: bigint): boolean {
  return address < KernelLayout.TASK_SIZE;
}
