import type { AddressSpace } from './address-space.js';
import { CpuFault } from './cpu-fault.js';
import { CpuState } from './cpu-state.js';
import { ExceptionVector } from './exception-vector.js';
import type { Insn } from './insn.js';
import { Page } from './page.js';
import { int32Slot } from './page-arena.js';
import { PageFlags } from './page-flags.js';

/** TLB entries (direct-mapped by page number; the mask 255 appears as a literal on the hot path). */
const TLB_SIZE = 256;
const DUMMY = new Page(0);

/** Kinds of memory access, for permission checks and #PF error codes. */
export const Access = { Read: 0, Write: 1, Fetch: 2 } as const;

/** 64-bit value of int32 halves as a bigint (host side, allocates). */
export function toBig(lo: number, hi: number): bigint {
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

/** Low int32 half of a 64-bit bigint (host side). */
export function lo32(v: bigint): number {
  return Number(BigInt.asIntN(32, v)) | 0;
}

/** High int32 half of a 64-bit bigint (host side). */
export function hi32(v: bigint): number {
  return Number(BigInt.asIntN(32, v >> 32n)) | 0;
}

/**
 * A debugger's memory watch (gdb's read and access watchpoints): while set, the pages it names (by
 * their `lo & -4096` and `hi` halves) never enter the CPU's read or write TLB, so every load and store
 * of them takes the slow path, where `access` sees it (and only it) once the translation succeeded.
 * Flush the TLB after setting it.
 */
export interface MemoryWatch {
  readonly pageLo: Int32Array;
  readonly pageHi: Int32Array;
  access(lo: number, hi: number, size: number, write: boolean): void;
}

/**
 * CPU state plus the memory path: a direct-mapped TLB with separate read, write and fetch entries in
 * front of the address space's page map, effective-address computation and operand access.
 * @see Intel SDM Vol. 3A §4.7 (page-fault exceptions) and §4.10 (caching translation information)
 */
/** CR0.WP: supervisor writes honour read-only pages. */
const CR0_WP = 1n << 16n;

export class CpuCore extends CpuState {
  addressSpaceRef: AddressSpace;
  cplValue: 0 | 3 = 0;
  fsLo = 0;
  fsHi = 0;
  gsLo = 0;
  gsHi = 0;
  cr2Value = 0n;
  /** CR0 (PG, WP, NE, ET, MP, PE and AM set): paging reads its WP bit. */
  cr0Value = 0x80050033n;
  /** Non-zero when the run loop must re-check pending interrupts and drop its cached code page. */
  attention = 1;
  /**
   * A debugger's stop addresses (gdb's breakpoints at full speed), one set shared by the CPUs of a
   * machine: an instruction at one decodes as a stop, and the run returns before it (reason
   * `budget`, {@link atDebugStop} set), nothing executed or counted. Decoding looks at it, so it
   * costs a run nothing per instruction; whoever changes it drops the decoded code at the addresses
   * changed (`AddressSpace.dropCode`), as a code write does, without writing memory.
   */
  debugStops: ReadonlySet<bigint> | null = null;
  /** Set when a run returned at a {@link debugStops} address; the host clears it. */
  atDebugStop = false;
  /** Counts {@link flushTlb} calls (a run loop calling out to the host sees whether one happened meanwhile). */
  tlbFlushes = 0;
  /**
   * Moves whenever the general registers may have changed other than by the instruction a run
   * retires: at a host write that changes one (`setRegHalves`, `setReg`, a context restored) and at
   * every run or step (an exception delivered pushes and moves RSP without retiring). A region
   * compiled to JavaScript that asks the host at a gate reloads its registers only when this moved.
   */
  regWrites = 0;
  /**
   * A debugger's memory watch (gdb's read and access watchpoints): while set, the pages it names (by
   * their `lo & -4096` and `hi` halves) never enter this CPU's read or write TLB, so every load and
   * store of them takes the slow path, where `access` sees it (and only it) once the translation
   * succeeded. Null, the
   * default, costs nothing: only slow paths look at it. Flush the TLB after setting it.
   */
  memoryWatch: MemoryWatch | null = null;
  /** High half of the last effective address. */
  eah = 0;
  /** Address of the memory destination read by readDst. */
  mal = 0;
  mah = 0;
  readonly rTagLo: Int32Array;
  readonly rTagHi: Int32Array;
  /** Per read entry, its page's offset in the page arena's memory (Page.offset, -1 for none). */
  readonly rOff: Int32Array;
  readonly rPage: Page[] = new Array<Page>(TLB_SIZE).fill(DUMMY);
  readonly wTagLo: Int32Array;
  readonly wTagHi: Int32Array;
  readonly wOff: Int32Array;
  readonly wPage: Page[] = new Array<Page>(TLB_SIZE).fill(DUMMY);
  /**
   * Where the read and the write TLB are in the page arena's memory (tag low halves, high halves,
   * page offsets: 1 KiB each), for code compiled to WebAssembly; -1 when they have arrays of their own.
   */
  readonly rTlbOffset: number;
  readonly wTlbOffset: number;
  readonly fTagLo: Int32Array = new Int32Array(TLB_SIZE).fill(1);
  readonly fTagHi: Int32Array = new Int32Array(TLB_SIZE);
  readonly fPage: Page[] = new Array<Page>(TLB_SIZE).fill(DUMMY);
  /**
   * The fetch entry most recently displaced from its slot (a one-entry victim cache): two code pages
   * that share a slot (kernel text and a trampoline page 1 MiB apart) swap instead of missing.
   */
  protected vTagLo = 1;
  protected vTagHi = 0;
  protected vPage: Page = DUMMY;

  constructor(addressSpace: AddressSpace) {
    super();
    this.addressSpaceRef = addressSpace;
    const r = int32Slot([TLB_SIZE, TLB_SIZE, TLB_SIZE]);
    const w = int32Slot([TLB_SIZE, TLB_SIZE, TLB_SIZE]);
    [this.rTagLo, this.rTagHi, this.rOff] = r.arrays;
    [this.wTagLo, this.wTagHi, this.wOff] = w.arrays;
    this.rTlbOffset = r.offset;
    this.wTlbOffset = w.offset;
    // A tag low half of 1 is never page-aligned: no entry matches yet.
    this.rTagLo.fill(1);
    this.wTagLo.fill(1);
  }

  /** Forgets every cached translation (a tag low half of 1 is never page-aligned, so never matches). @see Intel SDM Vol. 3A §4.10.4.1 (MOV to CR3 flushes the TLB) */
  flushTlb(): void {
    this.tlbFlushes++;
    this.attention = 1;
    this.rTagLo.fill(1);
    this.wTagLo.fill(1);
    this.fTagLo.fill(1);
    this.vTagLo = 1;
  }

  /**
   * Forgets the write translations only: the next write to each page translates again, and the
   * address space records the page as written then ({@link AddressSpace.takeSoftDirty}). Reads and
   * fetches keep theirs. Changes nothing the guest can observe.
   * @see Intel SDM Vol. 3A §4.8 (a CPU sets a PTE's dirty flag when it first translates a write)
   */
  flushWriteTlb(): void {
    this.wTagLo.fill(1);
  }

  /** Translates an address for `access`, raising #GP/#PF as the SDM says, and fills the TLB. */
  translate(lo: number, hi: number, access: number): Page {
    const top = hi >> 15;
    if (top !== 0 && top !== -1) throw new CpuFault(ExceptionVector.GeneralProtection, 0);
    const page = this.addressSpaceRef.lookup(lo, hi);
    const user = this.cplValue === 3;
    const code = (access === Access.Write ? 2 : 0) | (user ? 4 : 0) | (access === Access.Fetch ? 16 : 0);
    if (page === undefined) this.pageFault(lo, hi, code);
    const f = page.flags;
    if (user && !(f & PageFlags.User)) this.pageFault(lo, hi, code | 1);
    // A supervisor write ignores a read-only page while CR0.WP is clear. @see Intel SDM Vol. 3A §4.6.1
    if (access === Access.Write && !(f & PageFlags.Writable) && (user || (this.cr0Value & CR0_WP) !== 0n))
      this.pageFault(lo, hi, code | 1);
    if (access === Access.Fetch && f & PageFlags.NoExecute) this.pageFault(lo, hi, code | 1);
    if (access === Access.Fetch) {
      const i = (lo >>> 12) & 255;
      if (this.fTagLo[i] !== 1 && (this.fTagLo[i] !== (lo & -4096) || this.fTagHi[i] !== hi)) {
        this.vTagLo = this.fTagLo[i];
        this.vTagHi = this.fTagHi[i];
        this.vPage = this.fPage[i];
      }
      this.fTagLo[i] = lo & -4096;
      this.fTagHi[i] = hi;
      this.fPage[i] = page;
    } else {
      // A watched page stays out of the TLB: each access comes back here (soft-dirty noted each time).
      const cached = this.memoryWatch === null || !this.watches(lo, hi);
      const i = this.dataSlot(lo, hi);
      if (cached) {
        this.rTagLo[i] = lo & -4096;
        this.rTagHi[i] = hi;
        this.rOff[i] = page.offset;
        this.rPage[i] = page;
      }
      if (access === Access.Write) {
        if (cached) {
          this.wTagLo[i] = lo & -4096;
          this.wTagHi[i] = hi;
          this.wOff[i] = page.offset;
          this.wPage[i] = page;
        }
        this.addressSpaceRef.noteWriteTranslation(lo, hi, page);
      }
    }
    return page;
  }

  /** Tells {@link memoryWatch} of an access that touches a page it names (either, across two). */
  private watchedAccess(lo: number, hi: number, size: number, write: boolean): void {
    const end = (lo + size - 1) | 0;
    const endHi = (lo >>> 0) + size - 1 > 0xffffffff ? (hi + 1) | 0 : hi;
    if (this.watches(lo, hi) || this.watches(end, endHi)) this.memoryWatch!.access(lo, hi, size, write);
  }

  /** True when {@link memoryWatch} names the page of `hi:lo`. */
  private watches(lo: number, hi: number): boolean {
    const w = this.memoryWatch!;
    const tag = lo & -4096;
    for (let k = 0; k < w.pageLo.length; k++) if (w.pageLo[k] === tag && w.pageHi[k] === hi) return true;
    return false;
  }

  private pageFault(lo: number, hi: number, code: number): never {
    throw new CpuFault(ExceptionVector.PageFault, code, BigInt.asUintN(64, (BigInt(hi) << 32n) | BigInt(lo >>> 0)));
  }

  /** Any read the fast path cannot serve: a TLB miss or a page-crossing access. */
  rdSlow(lo: number, hi: number, size: number): number {
    const off = lo & 0xfff;
    const p1 = this.translate(lo, hi, Access.Read);
    let p2 = p1;
    if (off + size > 4096) {
      const nl = (lo + (4096 - off)) | 0;
      p2 = this.translate(nl, nl === 0 ? (hi + 1) | 0 : hi, Access.Read);
    }
    if (this.memoryWatch !== null) this.watchedAccess(lo, hi, size, false);
    let l = 0;
    let h = 0;
    for (let b = size - 1; b >= 0; b--) {
      const o = off + b;
      const byte = o < 4096 ? p1.data[o] : p2.data[o - 4096];
      if (b >= 4) h |= byte << ((b - 4) * 8);
      else l |= byte << (b * 8);
    }
    this.vh = h;
    return size === 4 || size === 8 ? l : l >>> 0;
  }

  /** Any write the fast path cannot serve; checks both pages before writing either. */
  wrSlow(lo: number, hi: number, size: number, vl: number, vh: number): void {
    const off = lo & 0xfff;
    const p1 = this.translate(lo, hi, Access.Write);
    let p2 = p1;
    if (off + size > 4096) {
      const nl = (lo + (4096 - off)) | 0;
      p2 = this.translate(nl, nl === 0 ? (hi + 1) | 0 : hi, Access.Write);
    }
    if (this.memoryWatch !== null) this.watchedAccess(lo, hi, size, true);
    for (let b = 0; b < size; b++) {
      const o = off + b;
      const byte = (b >= 4 ? vh >>> ((b - 4) * 8) : vl >>> (b * 8)) & 0xff;
      if (o < 4096) p1.data[o] = byte;
      else p2.data[o - 4096] = byte;
    }
    if (p1.code !== null) p1.onWrite(off, Math.min(size, 4096 - off));
    if (p2 !== p1 && p2.code !== null) p2.onWrite(0, off + size - 4096);
  }

  /** Reads `size` bytes (zero-extended below 4); the high half goes to `vh`. */
  load(lo: number, hi: number, size: number): number {
    switch (size) {
      case 8:
        return this.rd64(lo, hi);
      case 4:
        this.vh = 0;
        return this.rd32(lo, hi);
      case 2:
        this.vh = 0;
        return this.rd16(lo, hi);
      default:
        this.vh = 0;
        return this.rd8(lo, hi);
    }
  }

  store(lo: number, hi: number, size: number, vl: number, vh: number): void {
    switch (size) {
      case 8:
        this.wr64(lo, hi, vl, vh);
        return;
      case 4:
        this.wr32(lo, hi, vl);
        return;
      case 2:
        this.wr16(lo, hi, vl);
        return;
      default:
        this.wr8(lo, hi, vl);
    }
  }

  // @generated-begin: scripts/gen-dispatch.mjs writes the effective address and the data TLB's fast paths from src/semantics/cpu-core-source.ts
  /**
   * Effective address of the memory operand; the high half goes to `eah`. Sums are exact in doubles
   * (below 2^36), so each form is one add chain truncated once.
   * @see Intel SDM Vol. 1 §3.7.5
   */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  ea(i: Insn): number {
    const mf = i.mf;
    if (mf === 1 /* MemoryForm.Base */) {
      const b = i.mb;
      const x = (i.ml >>> 0) + (this.R[b] >>> 0);
      this.eah = (i.mh + this.H[b] + (x > 0xffffffff ? 1 : 0)) | 0;
      return x | 0;
    }
    if (mf === 2 /* MemoryForm.BaseIndex */) {
      const b = i.mb;
      const n = i.mi;
      const s = i.ms;
      const x = (this.R[n] >>> 0) * s + (this.R[b] >>> 0) + (i.ml >>> 0);
      this.eah = (i.mh + this.H[b] + Math.imul(this.H[n], s) + ((x / 4294967296) | 0)) | 0;
      return x | 0;
    }
    if (mf === 0 /* MemoryForm.Disp */) {
      this.eah = i.mh;
      return i.ml;
    }
    if (mf === 3 /* MemoryForm.Index */) {
      const n = i.mi;
      const s = i.ms;
      const x = (this.R[n] >>> 0) * s + (i.ml >>> 0);
      this.eah = (i.mh + Math.imul(this.H[n], s) + ((x / 4294967296) | 0)) | 0;
      return x | 0;
    }
    return this.eaGeneral(i);
  }

  /** Effective address with a 32-bit address size or an FS/GS base. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private eaGeneral(i: Insn): number {
    let xl = i.ml;
    let xh = i.mh;
    if (i.mb >= 0) {
      const l = (xl >>> 0) + (this.R[i.mb] >>> 0);
      xh = xh + this.H[i.mb] + (l > 0xffffffff ? 1 : 0);
      xl = l | 0;
    }
    if (i.mi >= 0) {
      const z = (this.R[i.mi] >>> 0) * i.ms + (xl >>> 0);
      xh = xh + this.H[i.mi] * i.ms + ((z / 4294967296) | 0);
      xl = z | 0;
    }
    if (i.a32 !== 0) xh = 0;
    if (i.seg !== 0) {
      const l = (xl >>> 0) + ((i.seg === 1 ? this.fsLo : this.gsLo) >>> 0);
      xh = xh + (i.seg === 1 ? this.fsHi : this.gsHi) + (l > 0xffffffff ? 1 : 0);
      xl = l | 0;
    }
    this.eah = xh | 0;
    return xl;
  }

  /** The data TLB's slot of the page at `lo`:`hi`. */
  dataSlot(lo: number, hi: number): number {
    return ((lo >>> 12) ^ hi) & 255;
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  rd8(lo: number, hi: number): number {
    const i = ((lo >>> 12) ^ hi) & 255, off = lo & 0xfff;
    if (this.rTagLo[i] === (lo & -4096) && this.rTagHi[i] === hi) {
      return this.rPage[i].data[off];
    }
    return this.rdSlow(lo, hi, 1);
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  rd16(lo: number, hi: number): number {
    const i = ((lo >>> 12) ^ hi) & 255, off = lo & 0xfff;
    if (this.rTagLo[i] === (lo & -4096) && this.rTagHi[i] === hi && off <= 4094) {
      return this.rPage[i].view.getUint16(off, true);
    }
    return this.rdSlow(lo, hi, 2);
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  rd32(lo: number, hi: number): number {
    const i = ((lo >>> 12) ^ hi) & 255, off = lo & 0xfff;
    if (this.rTagLo[i] === (lo & -4096) && this.rTagHi[i] === hi && off <= 4092) {
      return this.rPage[i].view.getInt32(off, true);
    }
    return this.rdSlow(lo, hi, 4);
  }

  /** Reads 64 bits; returns the low half, the high half goes to `vh`. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  rd64(lo: number, hi: number): number {
    const i = ((lo >>> 12) ^ hi) & 255, off = lo & 0xfff;
    if (this.rTagLo[i] === (lo & -4096) && this.rTagHi[i] === hi && off <= 4088) {
      const v = this.rPage[i].view;
      this.vh = v.getInt32(off + 4, true);
      return v.getInt32(off, true);
    }
    return this.rdSlow(lo, hi, 8);
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  wr8(lo: number, hi: number, v: number): void {
    const i = ((lo >>> 12) ^ hi) & 255, off = lo & 0xfff;
    if (this.wTagLo[i] === (lo & -4096) && this.wTagHi[i] === hi) {
      const p = this.wPage[i];
      p.data[off] = v;
      if (p.code !== null) p.onWrite(off, 1);
      return;
    }
    this.wrSlow(lo, hi, 1, v, 0);
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  wr16(lo: number, hi: number, v: number): void {
    const i = ((lo >>> 12) ^ hi) & 255, off = lo & 0xfff;
    if (this.wTagLo[i] === (lo & -4096) && this.wTagHi[i] === hi && off <= 4094) {
      const p = this.wPage[i];
      p.view.setUint16(off, v, true);
      if (p.code !== null) p.onWrite(off, 2);
      return;
    }
    this.wrSlow(lo, hi, 2, v, 0);
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  wr32(lo: number, hi: number, v: number): void {
    const i = ((lo >>> 12) ^ hi) & 255, off = lo & 0xfff;
    if (this.wTagLo[i] === (lo & -4096) && this.wTagHi[i] === hi && off <= 4092) {
      const p = this.wPage[i];
      p.view.setInt32(off, v, true);
      if (p.code !== null) p.onWrite(off, 4);
      return;
    }
    this.wrSlow(lo, hi, 4, v, 0);
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  wr64(lo: number, hi: number, vl: number, vh: number): void {
    const i = ((lo >>> 12) ^ hi) & 255, off = lo & 0xfff;
    if (this.wTagLo[i] === (lo & -4096) && this.wTagHi[i] === hi && off <= 4088) {
      const p = this.wPage[i];
      p.view.setInt32(off, vl, true);
      p.view.setInt32(off + 4, vh, true);
      if (p.code !== null) p.onWrite(off, 8);
      return;
    }
    this.wrSlow(lo, hi, 8, vl, vh);
  }
  // @generated-end

  /** Reads the source operand (register, immediate or memory); high half to `vh`. */
  readSrc(i: Insn): number {
    switch (i.sk) {
      case 1 /* OperandKind.Reg */:
        return this.getR(i.sr, i.size);
      case 3 /* OperandKind.Imm */:
        this.vh = i.ih;
        return i.il;
      default: {
        const lo = this.ea(i);
        return this.load(lo, this.eah, i.size);
      }
    }
  }

  /** Reads the destination operand, remembering a memory destination's address for writeDst. */
  readDst(i: Insn): number {
    if (i.dk === 1 /* OperandKind.Reg */) return this.getR(i.dr, i.size);
    const lo = this.ea(i);
    this.mal = lo;
    this.mah = this.eah;
    return this.load(lo, this.eah, i.size);
  }

  /** Writes the destination operand read by the preceding readDst. */
  writeDst(i: Insn, lo: number, hi: number): void {
    if (i.dk === 1 /* OperandKind.Reg */) this.setR(i.dr, i.size, lo, hi);
    else this.store(this.mal, this.mah, i.size, lo, hi);
  }

  // @generated-begin: scripts/gen-dispatch.mjs writes push and the stack pointer from src/semantics/cpu-core-source.ts
  /** Pushes `size` bytes; RSP moves only once the store succeeded. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  push(size: number, lo: number, hi: number): void {
    const l = (this.R[4] - size) | 0;
    const h = (this.H[4] - (((~this.R[4] & size) | (~(this.R[4] ^ size) & l)) >>> 31)) | 0;
    this.store(l, h, size, lo, hi);
    this.R[4] = l;
    this.H[4] = h;
  }

  /** push of 64 bits (call, push r64): RSP moves only once the store succeeded. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  push64(lo: number, hi: number): void {
    const l = (this.R[4] - 8) | 0;
    const h = (this.H[4] - (((~this.R[4] & 8) | (~(this.R[4] ^ 8) & l)) >>> 31)) | 0;
    this.wr64(l, h, lo, hi);
    this.R[4] = l;
    this.H[4] = h;
  }

  /** RSP += `size`: a pop, once what it popped has been read (see peek). */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  popCommit(size: number): void {
    const l = (this.R[4] + size) | 0;
    this.H[4] = (this.H[4] + (((this.R[4] & size) | ((this.R[4] | size) & ~l)) >>> 31)) | 0;
    this.R[4] = l;
  }

  /** leave's RSP = RBP + `size` (the operand size it then pops into RBP or BP). */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  leaveRsp(size: number): void {
    const x = (this.R[5] + size) | 0;
    this.H[4] = (this.H[5] + (((this.R[5] & size) | ((this.R[5] | size) & ~x)) >>> 31)) | 0;
    this.R[4] = x;
  }
  // @generated-end (stack)

  /** Reads the top of stack without moving RSP (pop commits with popCommit). */
  peek(size: number): number {
    return this.load(this.R[4], this.H[4], size);
  }

  /** Raises #GP(0) when not at CPL 0. @see Intel SDM Vol. 3A §5.9 (privileged instructions) */
  privileged(): void {
    if (this.cplValue !== 0) throw new CpuFault(ExceptionVector.GeneralProtection, 0);
  }
}
