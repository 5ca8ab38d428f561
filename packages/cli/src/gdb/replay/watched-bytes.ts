import type { AddressSpace } from '@int3/cpu';

/** A write watchpoint: `length` bytes at `address` of the kernel space, and what they held last. */
export interface WriteWatch {
  readonly address: bigint;
  readonly length: number;
}

/**
 * The values of a set of watched byte ranges, compared position by position without allocating: a
 * change tells the instruction before stored to one of them. Unmapped bytes read as -1.
 */
export class WatchedBytes {
  private readonly last: Int16Array;
  private readonly offsets: number[] = [];

  constructor(
    private readonly space: AddressSpace,
    readonly watches: readonly WriteWatch[],
  ) {
    let n = 0;
    for (const w of watches) {
      this.offsets.push(n);
      n += w.length;
    }
    this.last = new Int16Array(n);
    this.refresh();
  }

  /** Reads every watched byte again. */
  refresh(): void {
    for (let i = 0; i < this.watches.length; i++) this.scan(i, false);
  }

  /** The watch whose bytes changed since the last look (their new values noted), or undefined. */
  changed(): WriteWatch | undefined {
    let hit: WriteWatch | undefined;
    for (let i = 0; i < this.watches.length; i++) if (this.scan(i, true) && hit === undefined) hit = this.watches[i];
    return hit;
  }

  private scan(i: number, compare: boolean): boolean {
    const w = this.watches[i];
    let changed = false;
    for (let b = 0; b < w.length; b++) {
      const a = w.address + BigInt(b);
      const v = this.space.isMapped(a) ? this.space.readU8(a) : -1;
      const at = this.offsets[i] + b;
      if (compare && this.last[at] !== v) changed = true;
      this.last[at] = v;
    }
    return changed;
  }
}
