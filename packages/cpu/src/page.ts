import type { Insn } from './insn.js';
import { PAGE_ARENA } from './page-arena.js';
import { PAGE_SIZE } from './page-flags.js';

/** Compiled code derived from a page's bytes: it must drop what overlaps every write. */
export interface CompiledCodeObserver {
  /** Bytes [offset, offset+length) of the page changed (or their decoded code was dropped). */
  onWrite(offset: number, length: number): void;
  /** All decoded code of the page was dropped (unmap, a change of its execute permission). */
  clear(): void;
}

/** The bytes of a page after {@link Page.release}: none. */
const RELEASED = new Uint8Array(0);
const RELEASED_VIEW = new DataView(RELEASED.buffer);

/** Longest x86 instruction, in bytes. @see Intel SDM Vol. 2A §2.3.11 */
export const MAX_INSN_LENGTH = 15;

/**
 * One 4 KiB page of guest memory: its bytes, permissions, and the code decoded from it. Decoded code
 * belongs to the page object, so every address space and CPU sharing the page shares it, and any
 * write to the page (guest store or host write) drops the instructions it overlaps. Decoded and
 * compiled code hold absolute addresses (next instruction, branch targets, RIP), so a page lives at
 * one virtual address: `AddressSpace.share` maps a page into another space at the address it
 * has, and nothing maps one page at two addresses (an alias would run code decoded for the other).
 * @see Intel SDM Vol. 3A §4.5 (paging) and §11.6 (self-modifying code)
 */
export class Page {
  readonly data: Uint8Array;
  readonly view: DataView;
  /**
   * Where the bytes are in the page arena's WebAssembly memory (page-arena.ts), or -1 when the page
   * has a buffer of its own.
   */
  readonly offset: number;
  flags: number;
  /** Decoded instruction per start offset, or null when nothing on the page was decoded. */
  code: (Insn | null)[] | null = null;
  /** Pages whose last instructions straddle into this one. */
  straddlers: Page[] | null = null;
  /**
   * One byte per offset: 1 when the byte belongs to instrumentation (costs no virtual time), 2 when
   * it is a gate (as every byte of a `PageFlags.Gate` page is; a gate costs nothing either).
   */
  instrumentation: Uint8Array | null = null;
  /** True once a second address space maps this very page ({@link AddressSpace.share}). */
  shared = false;
  /**
   * What the CPU's block compiler compiled from this page's decoded code, told of every write the
   * decoded code is told of (and of its dropping), or null while nothing was compiled here.
   */
  jit: CompiledCodeObserver | null = null;

  /** A page of `flags`, zero-filled, or holding a copy of `bytes` (a page's worth exactly). */
  constructor(flags: number, bytes?: Uint8Array) {
    if (bytes !== undefined && bytes.length !== PAGE_SIZE) throw new RangeError('Page: a page of bytes');
    this.flags = flags;
    const page = PAGE_ARENA.allocate(bytes === undefined);
    if (bytes !== undefined) page.data.set(bytes);
    this.data = page.data;
    this.view = page.view;
    this.offset = page.offset;
  }

  /**
   * The page left the last address space that mapped it (AddressSpace.unmap of a page never
   * shared): its bytes go back to the page arena at once for the next page (PageArena.recycle),
   * rather than once the garbage collector has found them dead and the event loop has turned, which
   * a long synchronous run never lets happen (measured: `fork 20` run after run wrote every page it
   * copied to fresh memory, whose first write cost 2-3 µs a page where a reused slot's costs 0.3).
   * The page keeps empty bytes (a page with a buffer of its own too), so that a holder of it reads
   * nothing (or a RangeError), never its slot's next page. No CPU reads the slot afterwards: an unmap changes the mapping epoch, and every
   * CPU flushes its TLB (the page offsets compiled code goes through included) before it runs again.
   */
  release(): void {
    if (this.data === RELEASED) return;
    PAGE_ARENA.recycle({ data: this.data, view: this.view, offset: this.offset });
    const self = this as { data: Uint8Array; view: DataView; offset: number };
    self.data = RELEASED;
    self.view = RELEASED_VIEW;
    self.offset = -1;
  }

  /** The decode cache of this page, created on first use. */
  codeArray(): (Insn | null)[] {
    if (this.code === null) {
      this.code = new Array<Insn | null>(PAGE_SIZE).fill(null);
      // Compiled code leaves a store to a page with decoded code to the interpreter (PageArena.codeMap).
      if (this.offset >= 0) (PAGE_ARENA.codeMap as Uint8Array)[this.offset / PAGE_SIZE] = 1;
    }
    return this.code;
  }

  /** Records that `page` holds an instruction continuing on this page. */
  addStraddler(page: Page): void {
    this.codeArray();
    if (this.straddlers === null) this.straddlers = [];
    if (!this.straddlers.includes(page)) this.straddlers.push(page);
  }

  /** Drops every decoded instruction overlapping bytes [offset, offset+length). */
  onWrite(offset: number, length: number): void {
    if (this.jit !== null) this.jit.onWrite(offset, length);
    const code = this.code;
    if (code === null) return;
    const end = offset + length;
    for (let o = offset < MAX_INSN_LENGTH ? 0 : offset - MAX_INSN_LENGTH + 1; o < end; o++) {
      const insn = code[o];
      if (insn !== null && o + insn.len > offset) code[o] = null;
    }
    if (offset < MAX_INSN_LENGTH && this.straddlers !== null) {
      for (const p of this.straddlers) p.onWrite(PAGE_SIZE - MAX_INSN_LENGTH, MAX_INSN_LENGTH);
    }
  }

  /** Drops all decoded code of this page (and straddling code of pages before it). */
  invalidateCode(): void {
    if (this.jit !== null) this.jit.clear();
    if (this.straddlers !== null) {
      for (const p of this.straddlers) p.onWrite(PAGE_SIZE - MAX_INSN_LENGTH, MAX_INSN_LENGTH);
    }
    this.code = null;
    this.straddlers = null;
    if (this.offset >= 0) (PAGE_ARENA.codeMap as Uint8Array)[this.offset / PAGE_SIZE] = 0;
  }
}
