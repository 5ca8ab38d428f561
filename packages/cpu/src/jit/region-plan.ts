import type { Insn } from '../insn.js';
import type { Page } from '../page.js';

/**
 * Most basic blocks and instructions in one region. Bigger regions leave less often, and with entries
 * at their other blocks (see BlockCompiler) they overlap less: on the bench's corpus, 8/128 compiled
 * 54 regions of 356 blocks (94 distinct), 32/512 28 of 400, 48/512 and 64/1024 22 of 213 (the whole
 * of a branchy function such as the bitwise crc32's 24-block chain fits in one). V8 takes longer to
 * optimize a bigger one and deoptimizes it on each path first taken after that.
 */
export interface RegionLimits {
  readonly maxBlocks: number;
  readonly maxInsns: number;
}

/** Most instructions in one basic block. */
export const MAX_BLOCK_INSNS = 32;

/** How a basic block ends. */
export const BlockEnd = {
  /** Falls through to the next instruction (an uncompiled one, the block limit, or the page end). */
  Fall: 0,
  /** Ends with a control transfer it compiles (jcc, jmp, call, ret, an indirect branch…). */
  Branch: 1,
  /**
   * A gate, a block of its own (no instruction: the region asks the host's gate hook as the run loop
   * does, and goes on at the next offset when that is where the host moved RIP).
   */
  Gate: 2,
} as const;

/** Most pages one region's blocks are on (its own and those direct jumps took it to). */
export const MAX_PAGES = 4;

/** A page of a region: where it is mapped, and the page itself (its decoded code, its bytes). */
export interface PlannedPage {
  readonly lo: number;
  readonly hi: number;
  readonly page: Page;
}

/** One basic block of a region: consecutive instructions of one page. */
export interface PlannedBlock {
  /** Its page: an index into {@link RegionPlan.pages} (0 the region's own page, where it is entered). */
  readonly page: number;
  readonly start: number;
  readonly insns: Insn[];
  readonly end: number;
  /** Offset after the last instruction. */
  readonly next: number;
}

/** The blocks of one region, the entry first. */
export interface RegionPlan {
  readonly blocks: PlannedBlock[];
  /** The pages its blocks are on, its own first. */
  readonly pages: readonly PlannedPage[];
  /** The index in {@link pages} of the page at `lo:hi`, or -1. */
  pageOf(lo: number, hi: number): number;
  /** The index of the block that starts at `lo:hi`, or undefined. */
  blockAt(lo: number, hi: number): number | undefined;
}

/**
 * Where the fetch translations map other pages (the CPU's fetch TLB): a region may follow a direct
 * `jmp` onto a page the CPU has run code on under the translations of the moment. The compiled code
 * checks at each crossing that the TLB still maps that very page there.
 */
export interface ForeignPages {
  /** The page the fetch TLB (or its victim entry) maps at `lo:hi`, or null. */
  fetchedPage(lo: number, hi: number): Page | null;
}

/** Ops that end a block after themselves (a control transfer). */
export function isBranch(op: number): boolean {
  return (
    op === 39 /* Op.Jcc */ ||
    op === 37 /* Op.Jmp */ ||
    op === 34 /* Op.Call */ ||
    op === 36 /* Op.Ret */ ||
    op === 35 /* Op.CallInd */ ||
    op === 38 /* Op.JmpInd */ ||
    op === 89 /* Op.Jrcxz */ ||
    op === 90 /* Op.Loop */
  );
}

/**
 * Finds the blocks of a region from `entry` on `home`'s decode cache: breadth first along direct
 * branches, only through instructions already decoded (the interpreter ran there), each block
 * ending at a control transfer, before an instruction the compiler does not take, or at the page end;
 * a gate is a block of its own, followed by the block after it. Branches stay on the pages the region
 * is on, but for a direct `jmp` to a page `foreign` maps (a probe's jump to its detour buffer, or back),
 * which adds that page (at most {@link MAX_PAGES}). Returns null when the entry instruction itself
 * cannot be compiled.
 */
export function planRegion(
  home: PlannedPage,
  entry: number,
  compilable: (i: Insn) => boolean,
  limits: RegionLimits,
  foreign: ForeignPages | null = null,
): RegionPlan | null {
  const { maxBlocks, maxInsns } = limits;
  const blocks: PlannedBlock[] = [];
  const pages: PlannedPage[] = [home];
  // Block index by page index * 4096 + offset.
  const index = new Map<number, number>();
  const queue: number[] = [entry];
  let total = 0;
  const pageOf = (lo: number, hi: number): number => {
    for (let q = 0; q < pages.length; q++) if (pages[q].hi === hi && pages[q].lo === (lo & -4096)) return q;
    return -1;
  };
  /** The key of `lo:hi` to queue, or -1: on a page of the region, or (`jmp`) one `foreign` maps. */
  const target = (lo: number, hi: number, jmp: boolean): number => {
    let q = pageOf(lo, hi);
    if (q < 0 && jmp && foreign !== null && pages.length < MAX_PAGES) {
      const page = foreign.fetchedPage(lo & -4096, hi);
      const i = page?.code?.[lo & 0xfff] ?? null;
      if (page !== null && i !== null && (compilable(i) || i.op === 1) /* Op.Gate */) {
        q = pages.length;
        pages.push({ lo: lo & -4096, hi, page });
      }
    }
    return q < 0 ? -1 : q * 4096 + (lo & 0xfff);
  };
  while (queue.length > 0 && blocks.length < maxBlocks && total < maxInsns) {
    const key = queue.shift() as number;
    if (index.has(key)) continue;
    const q = key >> 12;
    const start = key & 0xfff;
    const { lo: pageLo, hi: pageHi, page } = pages[q];
    const code = page.code;
    if (code === null) continue;
    const first = code[start];
    if (first !== null && first !== undefined && first.op === 1 /* Op.Gate */) {
      if (start === entry && q === 0) return null;
      index.set(key, blocks.length);
      blocks.push({ page: q, start, insns: [first], end: BlockEnd.Gate, next: start + 1 });
      total++;
      // What the host moves RIP to after an inline gate is often the byte after it (a probe's detour
      // buffer: its copied instructions); a host service's gate returns elsewhere.
      const after = start + 1 < 4096 ? code[start + 1] : null;
      if (after !== null && after !== undefined && compilable(after)) queue.push(key + 1);
      continue;
    }
    const insns: Insn[] = [];
    let off = start;
    let end: number = BlockEnd.Fall;
    while (insns.length < MAX_BLOCK_INSNS && total + insns.length < maxInsns && off < 4096) {
      const i = code[off];
      if (i === null || i === undefined || off + i.len > 4096 || !compilable(i)) break;
      insns.push(i);
      off += i.len;
      if (isBranch(i.op)) {
        end = BlockEnd.Branch;
        break;
      }
    }
    if (insns.length === 0) {
      if (start === entry && q === 0) return null;
      continue;
    }
    index.set(key, blocks.length);
    blocks.push({ page: q, start, insns, end, next: off });
    total += insns.length;
    const last = insns[insns.length - 1];
    if (end === BlockEnd.Fall) {
      // A block cut by the length limits continues in another block, as does one that runs into a gate.
      const i = off < 4096 ? code[off] : null;
      if (i !== null && i !== undefined && off + i.len <= 4096 && (compilable(i) || i.op === 1) /* Op.Gate */)
        queue.push(q * 4096 + off);
      continue;
    }
    const op = last.op;
    if (op === 39 /* Op.Jcc */ || op === 37 /* Op.Jmp */ || op === 34 /* Op.Call */) {
      const t = target(last.tl, last.th, op === 37 /* Op.Jmp */);
      if (t >= 0) queue.push(t);
    }
    // A call's return site too: a ret that comes back to it stays in the region.
    if (op === 39 /* Op.Jcc */ || op === 34 /* Op.Call */) {
      if (last.nh === pageHi && (last.nl & -4096) === pageLo) queue.push(q * 4096 + (last.nl & 0xfff));
    }
  }
  const blockAt = (lo: number, hi: number): number | undefined => {
    const q = pageOf(lo, hi);
    return q < 0 ? undefined : index.get(q * 4096 + (lo & 0xfff));
  };
  return { blocks, pages, pageOf, blockAt };
}

/**
 * The blocks of `plan` at the return sites of its calls, each on the page of its call: where a ret
 * that comes back inside the region goes on (both back ends make them entries).
 */
export function returnSiteBlocks(plan: RegionPlan): number[] {
  const sites: number[] = [];
  for (const b of plan.blocks) {
    for (const i of b.insns) {
      if (i.op !== 34 /* Op.Call */) continue;
      const j = plan.blockAt(i.nl, i.nh);
      if (j !== undefined && plan.blocks[j].page === b.page && !sites.includes(j)) sites.push(j);
    }
  }
  return sites;
}
