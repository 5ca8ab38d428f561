import { Reg, type RegIndex } from '@int3/cpu';
import { PT_REGS_GPR, PT_REGS_NAMES, type PtRegs } from '@int3/kernel';
import type { FetchSource } from '../probe-events/fetch-source.js';
import type { MachineView } from '../view/machine-view.js';

/** High half of the first address of the kernel half (0xffff_8000_0000_0000): user accessors fail above. */
const KERNEL_HALF_HI = 0xffff8000;
const PAGE_MASK = 0xfff;

/** CPU register index of each pt_regs member in `PT_REGS_NAMES` order, -1 for non-GPRs. */
const GPR_OF: Int8Array = Int8Array.from(PT_REGS_NAMES, (name) => PT_REGS_GPR[name] ?? -1);

/**
 * The {@link FetchSource} of the CPU that hit a probe: general registers as raw halves, memory straight
 * from the pages of its current address space (no copies, no BigInt), `$comm` from the task running
 * there — all through the {@link MachineView}. One instance per CPU, re-aimed at every hit with
 * {@link MachineFetchContext.at} so a hit allocates nothing. User reads fail at the kernel half, as
 * `probe_mem_read_user()` does above `TASK_SIZE`.
 *
 * @see kernel/trace/trace_kprobe.c process_fetch_insn(), probe_mem_read(), probe_mem_read_user()
 * @see arch/x86/include/asm/ptrace.h regs_get_kernel_stack_nth()
 * @example
 * const src = new MachineFetchContext(view).at(regs, undefined);
 * recorder.store(src, hit, ev.bytes, ev.view, ev.offset);
 */
export class MachineFetchContext implements FetchSource {
  #regs: PtRegs | undefined;
  /** The CPU of the hit, -1 before the first. */
  #cpu = -1;
  #entry: Uint8Array | undefined;
  readonly #word = new Uint8Array(8);
  readonly #wordView = new DataView(this.#word.buffer);
  readonly #sp = new Uint32Array(2);

  constructor(private readonly view: MachineView) {}

  /** The page holding `hi:lo` on the hit's CPU, or undefined (unmapped, or a user read of the kernel half). */
  #pageOf(lo: number, hi: number, user: boolean): Uint8Array | undefined {
    if (user && hi >= KERNEL_HALF_HI) return undefined;
    return this.view.pageOf(this.#cpu, lo, hi | 0);
  }

  /**
   * Aims the context at one hit. `entryArgs`: for return probes, the arguments the entry handler
   * captured, 8 little-endian bytes each.
   */
  at(regs: PtRegs, entryArgs: Uint8Array | undefined): this {
    this.#regs = regs;
    this.#cpu = this.view.regs.smpProcessorId(regs);
    this.#entry = entryArgs;
    return this;
  }

  #current(): PtRegs {
    if (this.#regs === undefined) throw new Error('MachineFetchContext used before at()');
    return this.#regs;
  }

  loadRegister(reg: number, out: Uint32Array): void {
    const regs = this.#current();
    const gpr = GPR_OF[reg];
    if (gpr >= 0) {
      this.view.regs.raw(regs, gpr as RegIndex, out);
      return;
    }
    const v = regs.get(PT_REGS_NAMES[reg]);
    out[0] = Number(v & 0xffffffffn);
    out[1] = Number((v >> 32n) & 0xffffffffn);
  }

  loadStackNth(n: number, out: Uint32Array): void {
    const sp = this.#sp;
    this.view.regs.raw(this.#current(), Reg.RSP, sp);
    const s = sp[0] + 8 * n;
    const hi = (sp[1] + (s > 0xffffffff ? 1 : 0)) >>> 0;
    if (!this.copyMemory(s >>> 0, hi, 8, false, this.#word, 0)) {
      out[0] = out[1] = 0;
      return;
    }
    out[0] = this.#wordView.getUint32(0, true);
    out[1] = this.#wordView.getUint32(4, true);
  }

  loadEntryArg(n: number, out: Uint32Array): void {
    const e = this.#entry;
    if (e === undefined || 8 * n + 8 > e.length) {
      out[0] = out[1] = 0;
      return;
    }
    const at = 8 * n;
    out[0] = e[at] | (e[at + 1] << 8) | (e[at + 2] << 16) | (e[at + 3] << 24);
    out[1] = e[at + 4] | (e[at + 5] << 8) | (e[at + 6] << 16) | (e[at + 7] << 24);
  }

  copyMemory(lo: number, hi: number, length: number, user: boolean, dst: Uint8Array, at: number): boolean {
    if (this.#cpu < 0) return false;
    const data = this.#pageOf(lo, hi, user);
    if (data === undefined) return false;
    const off = lo & PAGE_MASK;
    const first = 4096 - off;
    if (length <= first) {
      for (let i = 0; i < length; i++) dst[at + i] = data[off + i];
      return true;
    }
    // The read crosses into the next page: both must be readable before anything is copied.
    const nextLo = ((lo | PAGE_MASK) + 1) >>> 0;
    const nextHi = nextLo === 0 ? (hi + 1) >>> 0 : hi;
    if (nextLo === 0 && hi === 0xffffffff) return false;
    const rest = this.#pageOf(nextLo, nextHi, user);
    if (rest === undefined) return false;
    for (let i = 0; i < first; i++) dst[at + i] = data[off + i];
    for (let i = first; i < length; i++) dst[at + i] = rest[i - first];
    return true;
  }

  copyString(lo: number, hi: number, user: boolean, dst: Uint8Array | null, at: number, max: number): number {
    if (this.#cpu < 0) return -1;
    let len = 0;
    while (len < max) {
      const data = this.#pageOf(lo, hi, user);
      if (data === undefined) return -1;
      const off = lo & PAGE_MASK;
      const n = Math.min(4096 - off, max - len);
      // Short strings are the rule: a plain loop beats a native indexOf call here.
      let i = 0;
      if (dst === null) {
        while (i < n && data[off + i] !== 0) i++;
      } else {
        const d = at + len;
        while (i < n) {
          const c = data[off + i];
          dst[d + i] = c;
          if (c === 0) break;
          i++;
        }
      }
      if (i < n) return len + i + 1;
      len += n;
      // Next page (wrapping past 2^64 is a fault).
      const s = lo + n;
      lo = s >>> 0;
      if (s > 0xffffffff) {
        if (hi === 0xffffffff) return -1;
        hi = (hi + 1) >>> 0;
      }
    }
    if (dst !== null) dst[at + max - 1] = 0;
    return max;
  }

  get comm(): string {
    this.#current();
    return this.view.tasks.current(this.#cpu)?.comm ?? 'swapper';
  }

  symbolize(address: bigint): string | undefined {
    const { symbols } = this.view;
    return symbols.lookup(address) ? symbols.format(address) : undefined;
  }
}
