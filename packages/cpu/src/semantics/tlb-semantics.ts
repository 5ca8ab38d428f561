/**
 * The data TLB's fast path, the one definition CpuCore's rd and wr methods (generated), the
 * interpreter's inline loads (the dispatch template) and the compiler's loads and stores
 * (RegionEmitter) are written from. The read and write TLBs are direct-mapped, 256 entries each: an
 * entry is a page's tag (its address's low half, page-aligned, and its high half) and its Page.
 */

/**
 * The slot of the page at `lo`:`hi` (source text). The page number's low 8 bits, xor the high half's:
 * the kernel's regions (direct map 0xffff8880…, vmalloc'd stacks 0xffffc900…, text 0xffffffff8…)
 * and a process's (text and heap low, stack near 0x7fff…) differ in the high half, so a stack page
 * and a buffer page at the same low address do not evict each other at every call and return (with
 * the page number alone, the bench's heap sort missed ~30,000 times a round on such pairs).
 */
export function tlbSlot(lo: string, hi: string): string {
  return `((${lo} >>> 12) ^ ${hi}) & 255`;
}

/** Where one access's TLB entry is, as source text. */
export interface TlbStage {
  /** The TLB's tag arrays and page array (`this.rTagLo`, or a local holding it). */
  readonly tagLo: string;
  readonly tagHi: string;
  readonly pages: string;
  /** The address's halves (names: each is read more than once). */
  readonly lo: string;
  readonly hi: string;
  /** Names of the slot and the page offset (see {@link tlbLocals}). */
  readonly slot: string;
  readonly off: string;
}

/** The slot and the page offset of the access, as `decl` declarations (`const `) or assignments (`''`). */
export function tlbLocals(s: TlbStage, decl: string): string {
  return `${decl}${s.slot} = ${tlbSlot(s.lo, s.hi)}, ${s.off} = ${s.lo} & 0xfff;`;
}

/** The entry's page (source text). */
export function tlbPage(s: TlbStage): string {
  return `${s.pages}[${s.slot}]`;
}

/** Whether the entry serves an access of `size` bytes: the tags match and it stays on the page. */
export function tlbHit(size: number, s: TlbStage): string {
  const tags = `${s.tagLo}[${s.slot}] === (${s.lo} & -4096) && ${s.tagHi}[${s.slot}] === ${s.hi}`;
  return size === 1 ? tags : `${tags} && ${s.off} <= ${4096 - size}`;
}

/**
 * A load of `size` bytes from page `page` (an expression) at `off`: statements to run first, then
 * its halves as expressions (the narrower loads zero-extended, 4 bytes as int32, the high half 0).
 * `view` names a temporary the 8-byte load reads its page's view into.
 */
export function loadHit(
  size: number,
  page: string,
  off: string,
  view: string,
): { lines: string[]; lo: string; hi: string } {
  switch (size) {
    case 8:
      return {
        lines: [`const ${view} = ${page}.view;`],
        lo: `${view}.getInt32(${off}, true)`,
        hi: `${view}.getInt32(${off} + 4, true)`,
      };
    case 4:
      return { lines: [], lo: `${page}.view.getInt32(${off}, true)`, hi: '0' };
    case 2:
      return { lines: [], lo: `${page}.view.getUint16(${off}, true)`, hi: '0' };
    default:
      return { lines: [], lo: `${page}.data[${off}]`, hi: '0' };
  }
}

/**
 * A store of `size` bytes of `vl`/`vh` into page `p` (a name) at `off`. The page's decoded code must
 * then be told ({@link storeTouchesCode}, {@link storeNotify}).
 */
export function storeHit(size: number, p: string, off: string, vl: string, vh: string): string[] {
  switch (size) {
    case 8:
      return [`${p}.view.setInt32(${off}, ${vl}, true);`, `${p}.view.setInt32(${off} + 4, ${vh}, true);`];
    case 4:
      return [`${p}.view.setInt32(${off}, ${vl}, true);`];
    case 2:
      return [`${p}.view.setUint16(${off}, ${vl}, true);`];
    default:
      return [`${p}.data[${off}] = ${vl};`];
  }
}

/** Whether a store into page `p` must tell its decoded code (only then can compiled code die of it). */
export function storeTouchesCode(p: string): string {
  return `${p}.code !== null`;
}

/** Telling page `p`'s decoded (and compiled) code of a store of `size` bytes at `off`. */
export function storeNotify(size: number, p: string, off: string): string {
  return `${p}.onWrite(${off}, ${size});`;
}
