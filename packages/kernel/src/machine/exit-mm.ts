import { type AddressSpace, PAGE_SIZE, PageFlags } from '@int3/cpu';
import { KernelLayout } from '../mm/kernel-layout.js';

const USER_HALF_KEYS = Number(KernelLayout.KERNEL_HALF >> 12n);

/**
 * Releases the memory of an exiting task's address space: its writable user pages (stack, data,
 * heap) are unmapped. Read-only pages stay: they are the program's text, shared with the loaded
 * program and the task's relatives (unmapping would also drop their shared decoded code), and cost
 * nothing of their own. A snapshot taken while the task lived still holds its pages and restores
 * them.
 *
 * @see kernel/exit.c exit_mm(), mm/mmap.c exit_mmap()
 */
export function exitMm(mm: AddressSpace): void {
  for (const [key, page] of [...mm.pageMap]) {
    if (key < USER_HALF_KEYS && (page.flags & PageFlags.Writable) !== 0) mm.unmap(BigInt(key) << 12n, PAGE_SIZE);
  }
}
