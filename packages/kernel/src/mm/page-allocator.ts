import { PAGE_SIZE } from '@int3/cpu';

/** A {@link PageAllocator}'s state as plain, immutable data (for machine snapshots). */
export interface PageAllocatorState {
  readonly free: readonly { readonly start: bigint; readonly pages: number }[];
  readonly used: readonly (readonly [bigint, number])[];
}

/**
 * A deterministic first-fit allocator of page ranges inside one virtual area. Freed ranges are
 * coalesced; the same sequence of calls always yields the same addresses (replay depends on it).
 *
 * @see mm/vmalloc.c (the role), not its algorithm
 */
export class PageAllocator {
  /** Free ranges, sorted by address, never adjacent. */
  private free: { start: bigint; pages: number }[];
  private readonly used = new Map<bigint, number>();

  constructor(
    readonly start: bigint,
    readonly end: bigint,
  ) {
    this.free = [{ start, pages: Number((end - start) / BigInt(PAGE_SIZE)) }];
  }

  /** Reserves `pages` pages (the first range that fits); undefined when the area is exhausted. */
  alloc(pages: number): bigint | undefined {
    for (let i = 0; i < this.free.length; i++) {
      const r = this.free[i];
      if (r.pages < pages) continue;
      const address = r.start;
      if (r.pages === pages) this.free.splice(i, 1);
      else this.free[i] = { start: r.start + BigInt(pages * PAGE_SIZE), pages: r.pages - pages };
      this.used.set(address, pages);
      return address;
    }
    return undefined;
  }

  /** Reserves pages at a fixed address, or returns false if any is taken. */
  allocAt(address: bigint, pages: number): boolean {
    const endAddr = address + BigInt(pages * PAGE_SIZE);
    const i = this.free.findIndex((r) => r.start <= address && r.start + BigInt(r.pages * PAGE_SIZE) >= endAddr);
    if (i < 0) return false;
    const r = this.free[i];
    const rEnd = r.start + BigInt(r.pages * PAGE_SIZE);
    const pieces = [];
    if (r.start < address) pieces.push({ start: r.start, pages: Number((address - r.start) / BigInt(PAGE_SIZE)) });
    if (endAddr < rEnd) pieces.push({ start: endAddr, pages: Number((rEnd - endAddr) / BigInt(PAGE_SIZE)) });
    this.free.splice(i, 1, ...pieces);
    this.used.set(address, pages);
    return true;
  }

  /** Size in pages of the allocation at `address`, or undefined if none starts there. */
  sizeOf(address: bigint): number | undefined {
    return this.used.get(address);
  }

  /** Releases an allocation made by {@link alloc}; returns its page count. */
  release(address: bigint): number {
    const pages = this.used.get(address);
    if (pages === undefined) throw new Error(`page allocator: no allocation at 0x${address.toString(16)}`);
    this.used.delete(address);
    let i = 0;
    while (i < this.free.length && this.free[i].start < address) i++;
    this.free.splice(i, 0, { start: address, pages });
    // Coalesce with the neighbours.
    const merged: { start: bigint; pages: number }[] = [];
    for (const r of this.free) {
      const last = merged[merged.length - 1];
      if (last && last.start + BigInt(last.pages * PAGE_SIZE) === r.start) last.pages += r.pages;
      else merged.push({ ...r });
    }
    this.free = merged;
    return pages;
  }

  /** The allocator's state, deep-copied. */
  save(): PageAllocatorState {
    return Object.freeze({
      free: Object.freeze(this.free.map((r) => Object.freeze({ ...r }))),
      used: Object.freeze([...this.used]),
    });
  }

  /** Puts the allocator back into a state from {@link save}. */
  restore(state: PageAllocatorState): void {
    this.free = state.free.map((r) => ({ ...r }));
    this.used.clear();
    for (const [address, pages] of state.used) this.used.set(address, pages);
  }

  /** Live allocations, by address (for state hashes). */
  allocations(): [bigint, number][] {
    return [...this.used].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  }
}
