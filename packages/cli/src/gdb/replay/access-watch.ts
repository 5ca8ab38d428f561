import type { Cpu } from '@int3/cpu';

/** A read (gdb's Z3, `rwatch`) or access (Z4, `awatch`) watchpoint on `length` bytes at `address`. */
export interface AccessWatch {
  readonly type: 'rwatch' | 'awatch';
  readonly address: bigint;
  readonly length: number;
}

/** What a memory access hit: which watchpoint, on which CPU. */
export interface AccessHit {
  readonly watch: AccessWatch;
  readonly cpu: number;
}

const lo32 = (a: bigint) => Number(a & 0xffffffffn) | 0;
const hi32 = (a: bigint) => Number((a >> 32n) & 0xffffffffn) | 0;

/**
 * Read and access watchpoints through the CPUs' memory watch: the watched pages stay out of every
 * CPU's TLB, so each load and store of them reaches the slow path, where the access is compared with
 * the watched ranges. `hit` then holds the first watchpoint an instruction touched (a read for both
 * kinds, a write for `awatch` only), until {@link take}. Installed for one run and removed after it:
 * with none installed, the CPUs pay nothing.
 */
export class AccessWatches {
  hit: AccessHit | undefined;

  constructor(private readonly watches: readonly AccessWatch[]) {}

  /** Watches through `cpus` until the returned function is called. */
  install(cpus: readonly Cpu[]): () => void {
    const tags = new Map<string, [number, number]>();
    for (const w of this.watches) {
      for (const a of [w.address, w.address + BigInt(w.length - 1)]) {
        const page = a & ~0xfffn;
        tags.set(page.toString(16), [lo32(page), hi32(page)]);
      }
    }
    const pageLo = Int32Array.from([...tags.values()].map((t) => t[0]));
    const pageHi = Int32Array.from([...tags.values()].map((t) => t[1]));
    const ranges = this.watches.map((w) => ({
      w,
      lo: lo32(w.address) >>> 0,
      hi: hi32(w.address),
      end: (lo32(w.address) >>> 0) + w.length,
    }));
    // Installed over another (a journaled input's inside a re-run that watches too): both see the
    // accesses to the pages of both, and the other is back when this one is removed.
    const before = cpus.map((cpu) => cpu.memoryWatch);
    cpus.forEach((cpu, index) => {
      const other = before[index];
      cpu.memoryWatch = {
        pageLo: other ? Int32Array.from([...other.pageLo, ...pageLo]) : pageLo,
        pageHi: other ? Int32Array.from([...other.pageHi, ...pageHi]) : pageHi,
        access: (lo, hi, size, write) => {
          other?.access(lo, hi, size, write);
          if (this.hit !== undefined) return;
          const from = lo >>> 0;
          for (const r of ranges) {
            if (r.hi === hi && from < r.end && r.lo < from + size && (!write || r.w.type === 'awatch')) {
              this.hit = { watch: r.w, cpu: index };
              return;
            }
          }
        },
      };
      cpu.flushTlb();
    });
    return () => {
      cpus.forEach((cpu, index) => {
        cpu.memoryWatch = before[index] ?? null;
        cpu.flushTlb();
      });
    };
  }

  /** The hit since the last look, forgotten. */
  take(): AccessHit | undefined {
    const h = this.hit;
    this.hit = undefined;
    return h;
  }
}
