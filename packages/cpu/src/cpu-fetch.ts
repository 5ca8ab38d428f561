import { Access } from './cpu-core.js';
import { CpuRegisters } from './cpu-registers.js';
import { debugStopInsn, decodeInsn, gateInsn, pageBytes } from './decode.js';
import type { Insn } from './insn.js';
import type { Page } from './page.js';
import { PageFlags } from './page-flags.js';

/**
 * The instruction fetch of the CPU: a fetch TLB in front of the per-page decode cache, and iced-x86
 * decoding on a miss (an instruction may straddle two pages, both executable).
 * @see Intel SDM Vol. 3A §4.6 (access rights: instruction fetches) and §11.6 (self-modifying code)
 */
export class CpuFetch extends CpuRegisters {
  /** The decoded instruction at RIP: fetch TLB and decode cache hit, else {@link fetchMiss}. */
  protected fetch(): Insn {
    const lo = this.ripLo;
    const i = (lo >>> 12) & 255;
    if (this.fTagLo[i] === (lo & -4096) && this.fTagHi[i] === this.ripHi) {
      const code = this.fPage[i].code;
      if (code !== null) {
        const insn = code[lo & 0xfff];
        if (insn !== null) return insn;
      }
      return this.fetchSlow();
    }
    return this.fetchMiss();
  }

  /**
   * Fetch-TLB miss: when the victim entry holds RIP's page, it is swapped back into the slot (two code
   * pages sharing a slot, such as kernel text and a trampoline page 1 MiB apart, then alternate without
   * a walk); otherwise {@link fetchSlow}.
   */
  private fetchMiss(): Insn {
    const lo = this.ripLo;
    const tag = lo & -4096;
    if (this.vTagLo === tag && this.vTagHi === this.ripHi) {
      const i = (lo >>> 12) & 255;
      const page = this.vPage;
      this.vTagLo = this.fTagLo[i];
      this.vTagHi = this.fTagHi[i];
      this.vPage = this.fPage[i];
      this.fTagLo[i] = tag;
      this.fTagHi[i] = this.ripHi;
      this.fPage[i] = page;
      const code = page.code;
      if (code !== null) {
        const insn = code[lo & 0xfff];
        if (insn !== null) return insn;
      }
    }
    return this.fetchSlow();
  }

  /**
   * The page the fetch TLB, or its victim entry, maps at page address `lo:hi` under the translations
   * of the moment, or null (see the block compiler's ForeignPages).
   */
  fetchedPage(lo: number, hi: number): Page | null {
    const i = (lo >>> 12) & 255;
    if (this.fTagLo[i] === (lo & -4096) && this.fTagHi[i] === hi) return this.fPage[i];
    if (this.vTagLo === (lo & -4096) && this.vTagHi === hi) return this.vPage;
    return null;
  }

  /** TLB or decode-cache miss: check permissions, decode with iced-x86, cache on the page object. */
  protected fetchSlow(): Insn {
    const lo = this.ripLo;
    const hi = this.ripHi;
    const page = this.translate(lo, hi, Access.Fetch);
    const off = lo & 0xfff;
    const code = page.codeArray();
    const cached = code[off];
    if (cached !== null) return cached;
    let insn: Insn;
    if (this.debugStops?.has(this.rip) === true) insn = debugStopInsn();
    else if (page.flags & PageFlags.Gate || (page.instrumentation !== null && page.instrumentation[off] === 2)) {
      insn = gateInsn();
    } else {
      const first = pageBytes(page.data, off);
      let decoded = decodeInsn(first, this.rip);
      if (decoded === null) {
        // Step 1: the instruction continues on the next page, which must be executable too.
        const nl = (lo + (4096 - off)) | 0;
        const next = this.translate(nl, nl === 0 ? (hi + 1) | 0 : hi, Access.Fetch);
        const bytes = new Uint8Array(15);
        bytes.set(first);
        bytes.set(next.data.subarray(0, 15 - first.length), first.length);
        decoded = decodeInsn(bytes, this.rip) as Insn;
        // Step 2: writes to either page must drop it.
        if (off + decoded.len > 4096) next.addStraddler(page);
      }
      insn = decoded;
      if (page.instrumentation !== null && page.instrumentation[off] !== 0) insn.cost = 0;
    }
    code[off] = insn;
    return insn;
  }
}
