import type { Insn } from '../insn.js';

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
} as const;

/** One basic block of a region: consecutive instructions of one page. */
export interface PlannedBlock {
  readonly start: number;
  readonly insns: Insn[];
  readonly end: number;
  /** Offset after the last instruction. */
  readonly next: number;
}

/** The blocks of one region, the entry first. */
export interface RegionPlan {
  readonly blocks: PlannedBlock[];
  /** Block index by start offset. */
  readonly index: Map<number, number>;
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
 * Finds the blocks of a region from `entry` on one page's decode cache: breadth first along direct
 * branches that stay on the page, only through instructions already decoded (the interpreter ran
 * there), each block ending at a control transfer, before an instruction the compiler does not take,
 * or at the page end. Returns null when the entry instruction itself cannot be compiled.
 */
export function planRegion(
  code: readonly (Insn | null)[],
  pageLo: number,
  pageHi: number,
  entry: number,
  compilable: (i: Insn) => boolean,
  limits: RegionLimits,
): RegionPlan | null {
  const { maxBlocks, maxInsns } = limits;
  const blocks: PlannedBlock[] = [];
  const index = new Map<number, number>();
  const queue = [entry];
  let total = 0;
  const inPage = (lo: number, hi: number) => hi === pageHi && (lo & -4096) === pageLo;
  while (queue.length > 0 && blocks.length < maxBlocks && total < maxInsns) {
    const start = queue.shift() as number;
    if (index.has(start)) continue;
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
      if (start === entry) return null;
      continue;
    }
    index.set(start, blocks.length);
    blocks.push({ start, insns, end, next: off });
    total += insns.length;
    const last = insns[insns.length - 1];
    if (end === BlockEnd.Fall) {
      // Only a block cut by the length limits continues in another block.
      const i = off < 4096 ? code[off] : null;
      if (i !== null && i !== undefined && off + i.len <= 4096 && compilable(i)) queue.push(off);
      continue;
    }
    const op = last.op;
    if (op === 39 /* Op.Jcc */ || op === 37 /* Op.Jmp */ || op === 34 /* Op.Call */) {
      if (inPage(last.tl, last.th)) queue.push(last.tl & 0xfff);
    }
    // A call's return site too: a ret that comes back to it stays in the region.
    if ((op === 39 /* Op.Jcc */ || op === 34) /* Op.Call */ && inPage(last.nl, last.nh)) queue.push(last.nl & 0xfff);
  }
  return { blocks, index };
}
