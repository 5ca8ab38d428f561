import type { Insn } from '../insn.js';
import type { CompiledCodeObserver, Page } from '../page.js';

/**
 * A region's compiled function: runs from the start of block `block` (one of its entries) with `rem`
 * instructions of budget (at least that entry's need, see RegionEntry.n), and leaves the CPU exactly as the interpreter would
 * after the same instructions: registers, lazy flags, RIP, retired and virtual counts. A fault
 * rethrows the CpuFault with all of that pointing at the faulting instruction. Returns the number of
 * the static exit it left by (see {@link JitRegion.links}), or -1 to -4 (see RegionSource.exits).
 */
export type RegionFunction = (
  cpu: unknown,
  rem: number,
  region: JitRegion,
  insns: readonly Insn[],
  block: number,
) => number;

/**
 * The `n` of an entry never entered (a head not compiled, an inner entry): above every budget the
 * run loop hands a chain (it caps its count at {@link MAX_LEFT}), and a Smi, so the loop's and the
 * chain's `n <= left` compares stay on small integers (Infinity there deoptimized the run loop).
 */
export const NEVER = 0x3fffffff;
/** Most instructions the run loop counts down at a time (`left`), below {@link NEVER}. */
export const MAX_LEFT = NEVER - 2;

/**
 * Where compiled code may be entered: the start of one of a region's blocks (the run loop and the
 * chain look these up by page offset; a region has one per block it can start at).
 */
export class RegionEntry {
  constructor(
    readonly region: JitRegion,
    /** Offset of the block on the page. */
    readonly entry: number,
    /**
     * The budget needed to enter: the most instructions the region may run from the block before it
     * checks its budget (RegionSource.needs); {@link NEVER} for "not compilable", and for an inner
     * entry (see {@link block}).
     */
    readonly n: number,
    /**
     * The block's number in the region's code; -1 for an inner entry: a block of the region its code
     * cannot start at (one reached only from inside it), or an instruction in the middle of a block,
     * which the run loop reached after the region left early (a TLB miss, the budget). The interpreter runs there up to the region's next
     * entry, rather than a new region overlapping this one be compiled from there.
     */
    readonly block: number,
  ) {}
}

/**
 * One compiled region: basic blocks reached from one entry, compiled into one function (internal
 * branches stay inside it), entered at any of its {@link entries}, all on its own page. Its blocks
 * are on that page and on up to three others that direct jumps led to ({@link foreign}): a write to
 * the bytes of any of them kills it. `dead` turns true then: the region function checks it after its
 * own stores, so a store into its own code stops it right there.
 */
export class JitRegion {
  dead = false;
  /**
   * Per exit, the entry last found at its target, valid while `gens` holds the fetch generation it
   * was found in (a new one at every TLB flush, see RegionChain), so a link never outlives the
   * translation it was made under; a dead target is never entered. Static exits come first; the
   * last link ({@link dynamic}) is for every other exit, and holds for one target, `dynLo:dynHi`.
   */
  readonly links: (RegionEntry | null)[];
  readonly gens: Float64Array;
  /** Index of the link of exits whose target the code does not know (a ret, an indirect branch, a gate's). */
  readonly dynamic: number;
  dynLo = 0;
  dynHi = 0;
  /** Runs left with a small budget (see RegionChain): a region's exit code runs early, in V8's eyes. */
  warm = 4;
  /** Where it can be entered, the block it was compiled from first. */
  readonly entries: RegionEntry[] = [];
  constructor(
    readonly owner: PageJit,
    /** The compiled function (a no-op for the not-compilable marker), called with this region and its `insns`. */
    readonly fn: RegionFunction,
    /** Byte ranges the region was compiled from, as [start, end) offset pairs. */
    readonly ranges: Int32Array,
    /** Static exits of its code. */
    exits = 0,
    /** Its instructions in the order of the generated code (what its executor calls get). */
    readonly insns: readonly Insn[] = [],
    /**
     * A gate region: the gate at its entry (no code; the chain asks the host's gate hook, as the run
     * loop does, and goes on where the host moved RIP). Its entry's `n` is 1: a gate is reached only
     * with budget for an instruction left. Or an int3 region: the int3 at its entry, which the chain
     * runs through `ChainCpu.int3InPlace` (a probe's breakpoint, whose #BP the host takes in place).
     */
    readonly gate: Insn | null = null,
    /**
     * The pages its blocks are on, its own first: at each crossing onto another, the code checks that
     * the fetch TLB still maps that very page (the same code compiled for another address space
     * sharing the first page may find another page there).
     */
    readonly pages: readonly Page[] = [],
    /** The other pages' compiled-code tables, and the byte ranges of its blocks on each. */
    readonly foreign: readonly ForeignRanges[] = [],
  ) {
    this.dynamic = exits;
    this.links = new Array<RegionEntry | null>(exits + 1).fill(null);
    this.gens = new Float64Array(exits + 1);
  }

  /** Whether bytes [offset, offset+length) of the page of `pj` overlap the region's code. */
  overlaps(offset: number, length: number, pj: PageJit): boolean {
    const end = offset + length;
    const r = pj === this.owner ? this.ranges : this.rangesOn(pj);
    for (let k = 0; k < r.length; k += 2) if (r[k] < end && offset < r[k + 1]) return true;
    return false;
  }

  /** The byte ranges of its blocks on the page of `pj` (none when it has none there). */
  private rangesOn(pj: PageJit): Int32Array {
    for (const f of this.foreign) if (f.pj === pj) return f.ranges;
    return NO_RANGES;
  }
}

/** A region's blocks on a page other than its own: that page's table, and [start, end) offset pairs. */
export interface ForeignRanges {
  readonly pj: PageJit;
  readonly ranges: Int32Array;
}

const NO_RANGES = new Int32Array(0);

/** Page offsets per chunk of the entry table: a page's table grows a chunk at a time, as regions are added. */
const CHUNK = 64;
/** Chunks per page (4 KiB). */
const CHUNKS = 4096 / CHUNK;
/** The chunk standing for "no region in these 64 offsets" (never written). */
const EMPTY: readonly (RegionEntry | null)[] = Object.freeze(new Array<RegionEntry | null>(CHUNK).fill(null));

/**
 * The compiled code of one page: region entries by offset; every write to the page kills the regions
 * it overlaps (and with each, all its entries). The entry table is in chunks of 64 offsets, each allocated when a region first enters
 * there, so a page costs memory in proportion to the regions compiled on it (a flat table of 4,096
 * was 32 KiB a page: +37 MiB on 1,999 pages with one region each).
 */
export class PageJit implements CompiledCodeObserver {
  private readonly chunks: (readonly (RegionEntry | null)[])[] = new Array<readonly (RegionEntry | null)[]>(
    CHUNKS,
  ).fill(EMPTY);
  /** The live regions with blocks on this page: its own, and those of other pages (see JitRegion.foreign). */
  private readonly regions: JitRegion[] = [];
  /** Regions killed by writes so far: a page rewritten over and over stops being compiled. */
  kills = 0;

  /** The region entry at page offset `off`, or null. */
  entry(off: number): RegionEntry | null {
    return this.chunks[off >> 6][off & 63];
  }

  private set(off: number, entry: RegionEntry | null): void {
    let c = this.chunks[off >> 6];
    if (c === EMPTY) {
      if (entry === null) return;
      c = new Array<RegionEntry | null>(CHUNK).fill(null);
      this.chunks[off >> 6] = c;
    }
    (c as (RegionEntry | null)[])[off & 63] = entry;
  }

  /**
   * Installs a region: its first entry replaces whatever was there (the run loop compiles only where
   * it found no entry); its other entries go where no other region's entry is. The tables of the
   * other pages it has blocks on learn of it, so that a write there kills it too.
   */
  add(region: JitRegion): void {
    for (const f of region.foreign) f.pj.regions.push(region);
    const entries = region.entries;
    const old = this.entry(entries[0].entry);
    if (old !== null) this.kill(old.region);
    this.set(entries[0].entry, entries[0]);
    for (let k = 1; k < entries.length; k++)
      if (this.entry(entries[k].entry) === null) this.set(entries[k].entry, entries[k]);
    this.regions.push(region);
  }

  /**
   * The live compiled region (its code, not a marker's) with a block that holds offset `off`, or
   * null. Regions overlap only where one was compiled before another's block was known, so the first
   * found is the one.
   */
  regionWithBlock(off: number): JitRegion | null {
    for (const r of this.regions) {
      if (r.insns.length === 0 || r.owner !== this) continue;
      const g = r.ranges;
      for (let k = 0; k < g.length; k += 2) if (g[k] <= off && off < g[k + 1]) return r;
    }
    return null;
  }

  /** Adds an inner entry (see {@link RegionEntry.block}) to a live region of this page. */
  addInner(region: JitRegion, off: number): RegionEntry {
    const e = new RegionEntry(region, off, NEVER, -1);
    region.entries.push(e);
    this.set(off, e);
    return e;
  }

  /** Drops one region (a write overlapped it, or the cache evicted it) from every page it is on. */
  kill(region: JitRegion): void {
    if (region.dead) return;
    region.dead = true;
    // A dead region keeps no other alive (a link to it may outlive it until it is followed again).
    region.links.fill(null);
    const owner = region.owner;
    for (const e of region.entries) if (owner.entry(e.entry) === e) owner.set(e.entry, null);
    owner.forget(region);
    for (const f of region.foreign) f.pj.forget(region);
  }

  private forget(region: JitRegion): void {
    const k = this.regions.indexOf(region);
    if (k >= 0) this.regions.splice(k, 1);
  }

  onWrite(offset: number, length: number): void {
    const regions = this.regions;
    for (let k = regions.length - 1; k >= 0; k--) {
      const r = regions[k];
      if (r.overlaps(offset, length, this)) {
        this.kill(r);
        this.kills++;
      }
    }
  }

  clear(): void {
    while (this.regions.length > 0) this.kill(this.regions[this.regions.length - 1]);
  }
}
