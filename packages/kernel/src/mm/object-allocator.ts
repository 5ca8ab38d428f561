import { type AddressSpace, PAGE_SIZE, PageFlags } from '@int3/cpu';
import type { PageAllocator } from './page-allocator.js';

const KERNEL_DATA = PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute;

/** The kmalloc size classes: `kmalloc-16` … `kmalloc-2048` (16-byte alignment); larger requests get whole pages. */
export const KMALLOC_CLASSES: readonly number[] = [16, 32, 64, 128, 256, 512, 1024, 2048];

/** An {@link ObjectAllocator}'s state as plain, immutable data (its pages are saved with their allocator). */
export interface ObjectAllocatorState {
  readonly freeLists: readonly (readonly bigint[])[];
  readonly live: readonly (readonly [bigint, number])[];
}

/**
 * The allocator behind `kmalloc`/`kfree`: power-of-two size classes carved from pages, larger objects
 * as whole pages. Deterministic (LIFO free lists, first-fit pages), so a replay allocates the same
 * addresses as the recorded run.
 *
 * @see mm/slab_common.c kmalloc_caches (the classes), not SLUB's algorithm
 */
export class ObjectAllocator {
  private readonly freeLists: bigint[][] = KMALLOC_CLASSES.map(() => []);
  private readonly live = new Map<bigint, number>();

  constructor(
    private readonly space: AddressSpace,
    private readonly pages: PageAllocator,
  ) {}

  /** Allocates `size` zero-filled bytes (16-byte aligned); 0n when memory is exhausted or `size` is 0. */
  alloc(size: number): bigint {
    const addr = this.allocRaw(size);
    if (addr !== 0n) this.space.write(addr, new Uint8Array(this.live.get(addr)!));
    return addr;
  }

  private allocRaw(size: number): bigint {
    if (size <= 0) return 0n;
    const cls = KMALLOC_CLASSES.findIndex((c) => c >= size);
    if (cls < 0) {
      const n = Math.ceil(size / PAGE_SIZE);
      const addr = this.pages.alloc(n);
      if (addr === undefined) return 0n;
      this.space.map(addr, n * PAGE_SIZE, KERNEL_DATA);
      this.live.set(addr, n * PAGE_SIZE);
      return addr;
    }
    const list = this.freeLists[cls];
    if (list.length === 0 && !this.refill(cls)) return 0n;
    const addr = list.pop()!;
    this.live.set(addr, KMALLOC_CLASSES[cls]);
    return addr;
  }

  /** Frees an object; returns false (and changes nothing) for an address that is not a live object. */
  free(address: bigint): boolean {
    const size = this.live.get(address);
    if (size === undefined) return false;
    this.live.delete(address);
    const cls = KMALLOC_CLASSES.indexOf(size);
    if (cls >= 0) this.freeLists[cls].push(address);
    else {
      this.pages.release(address);
      this.space.unmap(address, size);
    }
    return true;
  }

  /** The usable size of a live object (`ksize`), or undefined. */
  sizeOf(address: bigint): number | undefined {
    return this.live.get(address);
  }

  /** The allocator's state, deep-copied. */
  save(): ObjectAllocatorState {
    return Object.freeze({
      freeLists: Object.freeze(this.freeLists.map((l) => Object.freeze([...l]))),
      live: Object.freeze([...this.live]),
    });
  }

  /** Puts the allocator back into a state from {@link save}. */
  restore(state: ObjectAllocatorState): void {
    state.freeLists.forEach((l, i) => {
      this.freeLists[i] = [...l];
    });
    this.live.clear();
    for (const [address, size] of state.live) this.live.set(address, size);
  }

  /** Number of live objects. */
  get liveCount(): number {
    return this.live.size;
  }

  private refill(cls: number): boolean {
    const page = this.pages.alloc(1);
    if (page === undefined) return false;
    this.space.map(page, PAGE_SIZE, KERNEL_DATA);
    const size = KMALLOC_CLASSES[cls];
    // Pushed highest first so that pops hand out ascending addresses.
    for (let off = PAGE_SIZE - size; off >= 0; off -= size) this.freeLists[cls].push(page + BigInt(off));
    return true;
  }
}
