import { type AddressSpace, PAGE_SIZE, PageFlags } from '@int3/cpu';
import { KernelError } from '../kernel-error.js';
import { KernelLayout } from './kernel-layout.js';
import { ObjectAllocator, type ObjectAllocatorState } from './object-allocator.js';
import { PageAllocator, type PageAllocatorState } from './page-allocator.js';

const DATA = PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute;
const TEXT = PageFlags.Present;

/** One `textPoke`: where, and the bytes before and after. */
export interface TextPoke {
  readonly address: bigint;
  readonly before: Uint8Array;
  readonly after: Uint8Array;
}

/** The allocators' state of a {@link KernelMemory} (the pages themselves are saved by address space). */
export interface KernelMemoryState {
  readonly vmalloc: PageAllocatorState;
  readonly modules: PageAllocatorState;
  readonly directMap: PageAllocatorState;
  readonly heap: ObjectAllocatorState;
}

/**
 * The kernel half of memory: the direct map (the kmalloc heap), the vmalloc area (kernel stacks), the
 * module area (module text and data, kprobes' instruction slots and detour buffers — all within ±2 GiB
 * of kernel text so rel32 jumps and RIP-relative operands reach), and `textPoke`, the only way to change
 * kernel text.
 *
 * @see arch/x86/kernel/alternative.c text_poke()
 * @see arch/x86/kernel/module.c module_alloc()
 */
export class KernelMemory {
  readonly vmalloc: PageAllocator;
  readonly modules: PageAllocator;
  readonly directMap: PageAllocator;
  readonly heap: ObjectAllocator;
  private readonly pokeListeners: ((poke: TextPoke) => void)[] = [];

  constructor(readonly space: AddressSpace) {
    this.vmalloc = new PageAllocator(KernelLayout.VMALLOC_START, KernelLayout.VMALLOC_START + 0x10_0000_0000n);
    this.modules = new PageAllocator(KernelLayout.MODULES_VADDR, KernelLayout.MODULES_END);
    this.directMap = new PageAllocator(KernelLayout.PAGE_OFFSET, KernelLayout.PAGE_OFFSET + 0x4000_0000n);
    this.heap = new ObjectAllocator(space, this.directMap);
  }

  /** Maps `size` bytes (rounded up to pages) of zeroed kernel data in the vmalloc area. */
  vmallocMap(size: number, flags: number = DATA): bigint {
    return this.mapFrom(this.vmalloc, size, flags, 'vmalloc');
  }

  /**
   * Maps pages in the module area with the given flags (text pages: `PageFlags.Present` only, data:
   * writable + NX). This is where executable pages near the kernel come from.
   * @see arch/x86/kernel/module.c module_alloc()
   */
  moduleAlloc(size: number, flags: number = TEXT): bigint {
    return this.mapFrom(this.modules, size, flags, 'module');
  }

  /** Unmaps and releases pages from {@link vmallocMap} or {@link moduleAlloc}. */
  free(address: bigint): void {
    const area =
      address >= KernelLayout.MODULES_VADDR
        ? this.modules
        : address >= KernelLayout.VMALLOC_START
          ? this.vmalloc
          : this.directMap;
    const pages = area.release(address);
    this.space.unmap(address, pages * PAGE_SIZE);
  }

  /**
   * Writes `bytes` into kernel or module text, as through a temporary writable alias: the page
   * permissions stay read-only+exec, and every CPU's decoded copy of the touched code is dropped.
   * Refuses anything that is not mapped executable.
   *
   * @see arch/x86/kernel/alternative.c text_poke()
   */
  textPoke(address: bigint, bytes: Uint8Array): TextPoke {
    for (let i = 0; i < bytes.length; i++) {
      const flags = this.space.flagsAt(address + BigInt(i));
      if ((flags & PageFlags.Present) === 0 || (flags & PageFlags.NoExecute) !== 0) {
        throw new KernelError('EFAULT', `textPoke: 0x${(address + BigInt(i)).toString(16)} is not kernel text`);
      }
    }
    const before = this.space.read(address, bytes.length);
    this.space.write(address, bytes);
    const poke: TextPoke = Object.freeze({ address, before, after: bytes.slice() });
    for (const l of this.pokeListeners) l(poke);
    return poke;
  }

  /** Where every allocator stands, deep-copied (for machine snapshots). */
  save(): KernelMemoryState {
    return Object.freeze({
      vmalloc: this.vmalloc.save(),
      modules: this.modules.save(),
      directMap: this.directMap.save(),
      heap: this.heap.save(),
    });
  }

  /** Puts every allocator back into a state from {@link save}. */
  restore(state: KernelMemoryState): void {
    this.vmalloc.restore(state.vmalloc);
    this.modules.restore(state.modules);
    this.directMap.restore(state.directMap);
    this.heap.restore(state.heap);
  }

  /** Calls `fn` after every {@link textPoke}. */
  onTextPoke(fn: (poke: TextPoke) => void): void {
    this.pokeListeners.push(fn);
  }

  private mapFrom(area: PageAllocator, size: number, flags: number, what: string): bigint {
    const pages = Math.max(1, Math.ceil(size / PAGE_SIZE));
    const address = area.alloc(pages);
    if (address === undefined) throw new KernelError('ENOMEM', `${what} area exhausted (${pages} pages requested)`);
    this.space.map(address, pages * PAGE_SIZE, flags);
    return address;
  }
}
