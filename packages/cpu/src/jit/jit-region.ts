import type { Insn } from '../insn.js';
import type { CompiledCodeObserver } from '../page.js';

/**
 * A region's compiled function: runs from the region's entry with `rem` instructions of budget left
 * (at least the entry block's length), and leaves the CPU exactly as the interpreter would after the
 * same instructions: registers, lazy flags, RIP, retired and virtual counts. A fault rethrows the
 * CpuFault with all of that pointing at the faulting instruction. Returns the number of the static
 * exit it left by (see {@link JitRegion.links}), or -1.
 */
export type RegionFunction = (cpu: unknown, rem: number, region: JitRegion, insns: readonly Insn[]) => number;

/**
 * One compiled region: basic blocks of one page reached from one entry, compiled into one function
 * (internal branches stay inside it). `dead` turns true when a write overlaps its bytes: the region
 * function checks it after its own stores, so a store into its own code stops it right there.
 */
export class JitRegion {
  dead = false;
  /**
   * Per exit, the region last found at its target, valid while `gens` holds the fetch generation it
   * was found in (a new one at every TLB flush, see RegionChain), so a link never outlives the
   * translation it was made under; a dead target is never entered. Static exits come first; the
   * last link ({@link dynamic}) is for every other exit, and holds for one target, `dynLo:dynHi`.
   */
  readonly links: (JitRegion | null)[];
  readonly gens: Float64Array;
  /** Index of the link of exits whose target the code does not know (a ret, an indirect branch, a gate's). */
  readonly dynamic: number;
  dynLo = 0;
  dynHi = 0;
  constructor(
    readonly owner: PageJit,
    /** Offset of the entry on the page. */
    readonly entry: number,
    /** Instructions in the entry block (the budget needed to enter); Infinity for "not compilable". */
    readonly n: number,
    /** The compiled function (a no-op for the not-compilable marker), called with this region and its `insns`. */
    readonly fn: RegionFunction,
    /** Byte ranges the region was compiled from, as [start, end) offset pairs. */
    readonly ranges: Int32Array,
    /** Static exits of its code. */
    exits = 0,
    /** Its instructions in the order of the generated code (what its executor calls get). */
    readonly insns: readonly Insn[] = [],
    /**
     * A gate region: the gate at `entry` (no code; the chain asks the host's gate hook, as the run
     * loop does, and goes on where the host moved RIP). `n` is 1: a gate is reached only with budget
     * for an instruction left.
     */
    readonly gate: Insn | null = null,
  ) {
    this.dynamic = exits;
    this.links = new Array<JitRegion | null>(exits + 1).fill(null);
    this.gens = new Float64Array(exits + 1);
  }

  /** Whether bytes [offset, offset+length) overlap the region's code. */
  overlaps(offset: number, length: number): boolean {
    const end = offset + length;
    const r = this.ranges;
    for (let k = 0; k < r.length; k += 2) if (r[k] < end && offset < r[k + 1]) return true;
    return false;
  }
}

/** Page offsets per chunk of the entry table: a page's table grows a chunk at a time, as regions are added. */
const CHUNK = 64;
/** Chunks per page (4 KiB). */
const CHUNKS = 4096 / CHUNK;
/** The chunk standing for "no region in these 64 offsets" (never written). */
const EMPTY: readonly (JitRegion | null)[] = Object.freeze(new Array<JitRegion | null>(CHUNK).fill(null));

/**
 * The compiled code of one page: regions by entry offset; every write to the page kills the regions
 * it overlaps. The entry table is in chunks of 64 offsets, each allocated when a region first enters
 * there, so a page costs memory in proportion to the regions compiled on it (a flat table of 4,096
 * was 32 KiB a page: +37 MiB on 1,999 pages with one region each).
 */
export class PageJit implements CompiledCodeObserver {
  private readonly chunks: (readonly (JitRegion | null)[])[] = new Array<readonly (JitRegion | null)[]>(CHUNKS).fill(
    EMPTY,
  );
  private readonly regions: JitRegion[] = [];
  /** Regions killed by writes so far: a page rewritten over and over stops being compiled. */
  kills = 0;

  /** The region entered at page offset `off`, or null. */
  entry(off: number): JitRegion | null {
    return this.chunks[off >> 6][off & 63];
  }

  private set(off: number, region: JitRegion | null): void {
    let c = this.chunks[off >> 6];
    if (c === EMPTY) {
      if (region === null) return;
      c = new Array<JitRegion | null>(CHUNK).fill(null);
      this.chunks[off >> 6] = c;
    }
    (c as (JitRegion | null)[])[off & 63] = region;
  }

  add(region: JitRegion): void {
    const old = this.entry(region.entry);
    if (old !== null) this.kill(old);
    this.set(region.entry, region);
    this.regions.push(region);
  }

  /** Drops one region (a write overlapped it, or the cache evicted it). */
  kill(region: JitRegion): void {
    if (region.dead) return;
    region.dead = true;
    // A dead region keeps no other alive (a link to it may outlive it until it is followed again).
    region.links.fill(null);
    if (this.entry(region.entry) === region) this.set(region.entry, null);
    const k = this.regions.indexOf(region);
    if (k >= 0) this.regions.splice(k, 1);
  }

  onWrite(offset: number, length: number): void {
    const regions = this.regions;
    for (let k = regions.length - 1; k >= 0; k--) {
      const r = regions[k];
      if (r.overlaps(offset, length)) {
        this.kill(r);
        this.kills++;
      }
    }
  }

  clear(): void {
    while (this.regions.length > 0) this.kill(this.regions[this.regions.length - 1]);
  }
}
