import { mappingEpoch } from './mapping-epoch.js';
import { MemoryError } from './memory-error.js';
import { Page } from './page.js';
import { PAGE_SIZE, PageFlags } from './page-flags.js';

const KERNEL_HALF = 0xffff800000000000n;
const MASK64 = 0xffffffffffffffffn;
const KERNEL_HALF_KEY = 0xffff8 * 2 ** 32;

/** The map key of the page holding `hi:lo` (exact in a double). */
export function pageKey(lo: number, hi: number): number {
  return (hi >>> 0) * 1048576 + (lo >>> 12);
}

function isCanonical(a: bigint): boolean {
  return a < 0x800000000000n || a >= KERNEL_HALF;
}

/**
 * One virtual address space (what CR3 points at): a sparse map of 4 KiB pages. A space built with a
 * `kernel` space shares that space's upper canonical half: the same page objects, so a write through
 * either is seen by both and decoded code is shared.
 * @see Intel SDM Vol. 3A §4.5 (4-level paging) and Linux arch/x86/mm/pgtable.c (pgd_alloc shares the kernel half)
 * @example
 * const as = new AddressSpace();
 * as.map(0x400000n, 4096, PageFlags.Present | PageFlags.User);
 * as.writeU32(0x400000n, 0x90909090);
 */
export class AddressSpace {
  /** Pages by {@link pageKey}. */
  readonly pageMap = new Map<number, Page>();
  /**
   * Keys of the pages this space owns that may have changed since the last {@link takeSoftDirty}:
   * written by the host, mapped, unmapped or re-protected here, or written by a CPU — which records a
   * page when it translates a write to it, once per write translation (a write through a translation
   * it already holds records nothing, as the CPU sets a PTE's dirty flag once).
   */
  private softDirty = new Set<number>();
  /**
   * Held by a root space (one built without a `kernel`): the spaces over it, itself included, whose
   * soft-dirty set became non-empty since the last {@link takeDirtySpaces}.
   */
  private dirtySpaces: Set<AddressSpace> | undefined;
  /** The space whose upper half this space shares, or null. */
  readonly kernel: AddressSpace | null;

  constructor(kernel?: AddressSpace) {
    this.kernel = kernel ? (kernel.kernel ?? kernel) : null;
  }

  /** The page holding `hi:lo`, following the shared kernel half. */
  lookup(lo: number, hi: number): Page | undefined {
    if (this.kernel !== null && hi < 0) return this.kernel.pageMap.get(pageKey(lo, hi));
    return this.pageMap.get(pageKey(lo, hi));
  }

  /** Maps zero-filled pages; throws MemoryError if any is already mapped or the range is bad. */
  map(address: bigint, size: number, flags: number): void {
    this.place(address, size, () => new Page(flags | 1));
  }

  /**
   * Maps pages holding a copy of `bytes` (whole pages) at `address` (page-aligned): what `map` and
   * then `write` of the same bytes do, without zeroing the new pages first: a fork copies every
   * writable page of its parent (Linux shares them copy-on-write instead). Throws MemoryError if any
   * is already mapped or the range is bad.
   * @see kernel/fork.c dup_mmap()
   */
  mapCopy(address: bigint, bytes: Uint8Array, flags: number): void {
    if ((address & 0xfffn) !== 0n || bytes.length % PAGE_SIZE !== 0)
      throw new RangeError('mapCopy: a page-aligned address and whole pages');
    this.place(address, bytes.length, (k) => new Page(flags | 1, bytes.subarray(k * PAGE_SIZE, (k + 1) * PAGE_SIZE)));
  }

  /** Maps the `k`th page of [address, address+size) as `make(k)`, none if any is already mapped. */
  private place(address: bigint, size: number, make: (k: number) => Page): void {
    const pages = this.range(address, size);
    for (const a of pages) if (this.pageAt(a) !== undefined) throw new MemoryError('page already mapped', a);
    pages.forEach((a, k) => {
      const owner = this.owner(a);
      owner.pageMap.set(keyOf(a), make(k));
      owner.markSoftDirty(keyOf(a));
    });
  }

  /**
   * Maps, at the same addresses, the very page objects `from` maps over [address, address+size): the
   * two spaces then share those pages' bytes and decoded code, as processes share a file's page-cache
   * pages. Meant for pages nobody writes (read-only text): a host write to a shared page is seen by
   * every space that maps it. Lower (user) half only; throws MemoryError if `from` lacks a page or
   * this space already maps one.
   * @see mm/filemap.c (page-cache pages mapped by many processes)
   */
  share(from: AddressSpace, address: bigint, size: number): void {
    const pages = this.range(address, size);
    for (const a of pages) {
      if (a >= KERNEL_HALF) throw new MemoryError('cannot share a page of the kernel half', a);
      if (this.pageMap.has(keyOf(a))) throw new MemoryError('page already mapped', a);
      if (!from.pageMap.has(keyOf(a))) throw new MemoryError('unmapped guest memory', a);
    }
    for (const a of pages) {
      const page = from.pageMap.get(keyOf(a))!;
      page.shared = true;
      this.pageMap.set(keyOf(a), page);
      this.markSoftDirty(keyOf(a));
    }
  }

  /** Drops pages (and their decoded code); pages not mapped are ignored. */
  unmap(address: bigint, size: number): void {
    for (const a of this.range(address, size)) {
      const owner = this.owner(a);
      const page = owner.pageMap.get(keyOf(a));
      if (page === undefined) continue;
      page.invalidateCode();
      // A page no other space maps is gone for good: its slot of the page arena is free now.
      if (!page.shared) page.release();
      owner.pageMap.delete(keyOf(a));
      owner.markSoftDirty(keyOf(a));
    }
    mappingEpoch.value++;
  }

  /** Changes the flags of mapped pages; throws MemoryError on an unmapped page. */
  protect(address: bigint, size: number, flags: number): void {
    const pages = this.range(address, size);
    for (const a of pages) this.mustPage(a);
    for (const a of pages) {
      const page = this.mustPage(a);
      if ((page.flags ^ flags) & 16) page.invalidateCode();
      page.flags = flags | 1;
      this.noteWrite(a, page);
    }
    mappingEpoch.value++;
  }

  /** The flags of the page holding `address`, 0 when unmapped. */
  flagsAt(address: bigint): number {
    return this.pageAt(address)?.flags ?? 0;
  }

  /** True when every byte of [address, address+length) is mapped. */
  isMapped(address: bigint, length = 1): boolean {
    if (length <= 0) return true;
    const first = address & ~0xfffn;
    for (let a = first; a < address + BigInt(length); a += 4096n) {
      if (this.pageAt(a & MASK64) === undefined) return false;
    }
    return true;
  }

  /** Host read, ignoring permissions; returns a copy. Throws MemoryError on an unmapped byte. */
  read(address: bigint, length: number): Uint8Array {
    const out = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const a = (address + BigInt(done)) & MASK64;
      const page = this.mustPage(a);
      const off = Number(a & 0xfffn);
      const n = Math.min(PAGE_SIZE - off, length - done);
      out.set(page.data.subarray(off, off + n), done);
      done += n;
    }
    return out;
  }

  /** Host write, ignoring permissions; invalidates decoded code on every touched page. */
  write(address: bigint, bytes: Uint8Array): void {
    const pages: Page[] = [];
    for (let done = 0; done < bytes.length; ) {
      const a = (address + BigInt(done)) & MASK64;
      pages.push(this.mustPage(a));
      done += PAGE_SIZE - Number(a & 0xfffn);
    }
    let done = 0;
    for (const page of pages) {
      const off = Number((address + BigInt(done)) & 0xfffn);
      const n = Math.min(PAGE_SIZE - off, bytes.length - done);
      page.data.set(bytes.subarray(done, done + n), off);
      page.onWrite(off, n);
      this.noteWrite((address + BigInt(done)) & MASK64, page);
      done += n;
    }
  }

  /** Host read of one byte. */
  readU8(a: bigint): number {
    return this.mustPage(a).data[Number(a & 0xfffn)];
  }
  /** Host read of a little-endian 16-bit value. */
  readU16(a: bigint): number {
    const off = Number(a & 0xfffn);
    if (off <= PAGE_SIZE - 2) return this.mustPage(a).view.getUint16(off, true);
    const b = this.read(a, 2);
    return b[0] | (b[1] << 8);
  }
  /** Host read of a little-endian 32-bit value (unsigned). */
  readU32(a: bigint): number {
    const off = Number(a & 0xfffn);
    if (off <= PAGE_SIZE - 4) return this.mustPage(a).view.getUint32(off, true);
    const b = this.read(a, 4);
    return (b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)) >>> 0;
  }
  /** Host read of a little-endian 64-bit value (unsigned). */
  readU64(a: bigint): bigint {
    const off = Number(a & 0xfffn);
    if (off <= PAGE_SIZE - 8) return this.mustPage(a).view.getBigUint64(off, true);
    return new DataView(this.read(a, 8).buffer).getBigUint64(0, true);
  }
  /** Host write of one byte. */
  writeU8(a: bigint, v: number): void {
    const page = this.mustPage(a);
    const off = Number(a & 0xfffn);
    page.data[off] = v;
    page.onWrite(off, 1);
    this.noteWrite(a, page);
  }
  /** Host write of a little-endian 16-bit value. */
  writeU16(a: bigint, v: number): void {
    const off = Number(a & 0xfffn);
    if (off > PAGE_SIZE - 2) {
      this.write(a, Uint8Array.of(v & 0xff, (v >>> 8) & 0xff));
      return;
    }
    const page = this.mustPage(a);
    page.view.setUint16(off, v & 0xffff, true);
    page.onWrite(off, 2);
    this.noteWrite(a, page);
  }
  /** Host write of a little-endian 32-bit value. */
  writeU32(a: bigint, v: number): void {
    const off = Number(a & 0xfffn);
    if (off > PAGE_SIZE - 4) {
      this.write(a, Uint8Array.of(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff));
      return;
    }
    const page = this.mustPage(a);
    page.view.setUint32(off, v >>> 0, true);
    page.onWrite(off, 4);
    this.noteWrite(a, page);
  }
  /** Host write of a little-endian 64-bit value (taken modulo 2^64). */
  writeU64(a: bigint, v: bigint): void {
    const off = Number(a & 0xfffn);
    if (off > PAGE_SIZE - 8) {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, v), true);
      this.write(a, b);
      return;
    }
    const page = this.mustPage(a);
    page.view.setBigUint64(off, BigInt.asUintN(64, v), true);
    page.onWrite(off, 8);
    this.noteWrite(a, page);
  }

  /** Reads a NUL-terminated string of at most `max` bytes (latin-1). */
  readCString(a: bigint, max: number): string {
    let s = '';
    for (let i = 0; i < max; i++) {
      const c = this.readU8((a + BigInt(i)) & MASK64);
      if (c === 0) break;
      s += String.fromCharCode(c);
    }
    return s;
  }

  /**
   * Marks bytes as instrumentation (int3 bytes, trampolines, detour jumps): instructions starting on
   * them cost no virtual time. Invalidates the decoded code the range affects.
   */
  markInstrumentation(address: bigint, length: number, on: boolean): void {
    for (let i = 0; i < length; i++) this.setInstrumentation((address + BigInt(i)) & MASK64, on ? 1 : 0);
    this.dropCode(address, length);
  }

  /**
   * Makes one byte of an ordinary page a gate (or an ordinary byte again): reaching it in the CPU is a
   * gate, as anywhere on a `PageFlags.Gate` page, while the rest of the page runs as code. Invalidates
   * the decoded code there.
   */
  markGate(address: bigint, on: boolean): void {
    this.setInstrumentation(address & MASK64, on ? 2 : 0);
    this.dropCode(address, 1);
  }

  /** Whether the CPU treats `address` as a gate: on a `PageFlags.Gate` page, or marked by {@link markGate}. */
  isGate(address: bigint): boolean {
    const page = this.pageAt(address & MASK64);
    if (page === undefined) return false;
    return (page.flags & PageFlags.Gate) !== 0 || page.instrumentation?.[Number(address & 0xfffn)] === 2;
  }

  /**
   * Drops the decoded code overlapping [address, address+length) (without writing), for hosts whose
   * view of the bytes changed: the CPU decodes them again when it next gets there.
   */
  dropCode(address: bigint, length: number): void {
    for (let done = 0; done < length; ) {
      const a = (address + BigInt(done)) & MASK64;
      const off = Number(a & 0xfffn);
      const n = Math.min(PAGE_SIZE - off, length - done);
      this.mustPage(a).onWrite(off, n);
      done += n;
    }
  }

  private setInstrumentation(a: bigint, value: number): void {
    const page = this.mustPage(a);
    if (page.instrumentation === null) page.instrumentation = new Uint8Array(PAGE_SIZE);
    page.instrumentation[Number(a & 0xfffn)] = value;
  }

  /**
   * The page holding `hi:lo`, for a host writer that stores into its `data`/`view` itself (no bigint
   * per access): the page is recorded as written, as a CPU's write translation records it. Undefined
   * when unmapped. The writer still calls `page.onWrite` for the bytes it changed (decoded code).
   */
  lookupForWrite(lo: number, hi: number): Page | undefined {
    const page = this.lookup(lo, hi);
    if (page !== undefined) this.noteWriteTranslation(lo, hi, page);
    return page;
  }

  /**
   * Records a write translation a CPU made for `hi:lo` (a page it found with {@link lookup}): the
   * page may change from now on, until the CPU drops the translation (see {@link takeSoftDirty}).
   */
  noteWriteTranslation(lo: number, hi: number, page: Page): void {
    const owner = this.kernel !== null && hi < 0 ? this.kernel : this;
    owner.markSoftDirty(pageKey(lo, hi));
    if (page.shared) sharedPageWrites.value++;
  }

  /**
   * Returns the keys of the pages this space owns that may have changed (bytes, flags, mapping) since
   * the last call, and starts a new set — a soft-dirty scan. Writes a CPU makes through a write
   * translation it already holds are not recorded again: the caller flushes every CPU's write
   * translations ({@link Cpu.flushWriteTlb}) right after taking the sets of the spaces it reads, as
   * clearing soft-dirty bits write-protects the pages so that the next write faults and sets them.
   * A page shared by several spaces ({@link share}) is recorded only in the space written through;
   * writes to shared pages are counted in {@link sharedPageWrites} instead.
   * @see Documentation/admin-guide/mm/soft-dirty.rst (clear_refs, then the next write sets the bit)
   */
  takeSoftDirty(): ReadonlySet<number> {
    const taken = this.softDirty;
    if (taken.size === 0) return taken;
    this.softDirty = new Set();
    return taken;
  }

  /**
   * Returns the spaces whose soft-dirty set became non-empty since the last call — of the spaces
   * built over this one (`new AddressSpace(this)`) and this one itself — and starts a new set, so a
   * reader of soft-dirty sets visits the spaces that changed, not every space. Only a root space
   * (built without a `kernel`) keeps this set; on any other it is empty.
   */
  takeDirtySpaces(): ReadonlySet<AddressSpace> {
    const taken = this.dirtySpaces;
    if (taken === undefined || taken.size === 0) return EMPTY_SPACES;
    this.dirtySpaces = new Set();
    return taken;
  }

  /** Every mapped page in ascending address order (this space's lower half, then the shared upper half). */
  *pages(): Iterable<{ address: bigint; flags: number; data: Uint8Array }> {
    const entries = [...this.pageMap.entries()];
    if (this.kernel !== null) for (const e of this.kernel.pageMap) if (e[0] >= KERNEL_HALF_KEY) entries.push(e);
    entries.sort((x, y) => x[0] - y[0]);
    for (const [key, page] of entries) yield { address: BigInt(key) << 12n, flags: page.flags, data: page.data };
  }

  /** Records a host change to the page at `a`. */
  private noteWrite(a: bigint, page: Page): void {
    this.owner(a).markSoftDirty(keyOf(a));
    if (page.shared) sharedPageWrites.value++;
  }

  /** Records page `key` of this space as changed (and this space as dirty with its root). */
  private markSoftDirty(key: number): void {
    if (this.softDirty.size === 0) {
      const root = this.kernel ?? this;
      root.dirtySpaces ??= new Set();
      root.dirtySpaces.add(this);
    }
    this.softDirty.add(key);
  }

  private pageAt(a: bigint): Page | undefined {
    if (!isCanonical(a)) return undefined;
    return this.owner(a).pageMap.get(keyOf(a));
  }

  private mustPage(a: bigint): Page {
    const page = this.pageAt(a);
    if (page === undefined) throw new MemoryError('unmapped guest memory', a);
    return page;
  }

  private owner(a: bigint): AddressSpace {
    return this.kernel !== null && a >= KERNEL_HALF ? this.kernel : this;
  }

  private range(address: bigint, size: number): bigint[] {
    const a = BigInt.asUintN(64, address);
    if (a & 0xfffn) throw new MemoryError('address not page-aligned', a);
    const out: bigint[] = [];
    for (let off = 0n; off < BigInt(size); off += 4096n) {
      const p = (a + off) & MASK64;
      if (!isCanonical(p)) throw new MemoryError('non-canonical address', p);
      out.push(p);
    }
    return out;
  }
}

/**
 * Counts writes to pages mapped by more than one space ({@link AddressSpace.share}: program text,
 * read-only pages a fork shares), in any space: such a write is recorded in the soft-dirty set of the
 * space written through only, so a reader of those sets re-reads every shared page when it changed.
 */
export const sharedPageWrites = { value: 0 };

const EMPTY_SPACES: ReadonlySet<AddressSpace> = new Set();

function keyOf(a: bigint): number {
  return Number(a >> 12n);
}
