/** `MAX_INSN_SIZE`: bytes per instruction slot (the longest x86 instruction is 15). */
export const MAX_INSN_SIZE = 16;

/** Bytes per slot page. */
export const SLOT_PAGE_SIZE = 4096;

/** `INSNS_PER_PAGE`: slots on one executable page. */
export const INSNS_PER_PAGE = SLOT_PAGE_SIZE / MAX_INSN_SIZE;

/** Where slot pages come from: executable pages within ±2 GiB of the kernel (`module_alloc`). */
export interface SlotPageProvider {
  allocPage(): bigint;
  freePage(address: bigint): void;
}

interface InsnPage {
  readonly insns: bigint;
  readonly slotUsed: Uint8Array;
  nused: number;
}

/** A slot cache's pages and which slots are used, as plain data (for snapshots). */
export interface InsnSlotsState {
  readonly pages: readonly { readonly insns: bigint; readonly slotUsed: Uint8Array; readonly nused: number }[];
}

/**
 * The instruction-slot cache of the x86_64 kprobes port: pages of `PAGE_SIZE / MAX_INSN_SIZE` slots;
 * the first free slot of the first page that has one (newest page first, as `hlist_add_head` orders
 * them); a new page when all are full; an emptied page is freed unless it is the only one left.
 *
 * @see kernel/kprobes.c get_insn_slot(), free_insn_slot() (2.6.12)
 */
export class InsnSlots {
  private pages: InsnPage[] = [];
  private readonly perPage: number;

  /**
   * @param insnSize bytes per slot: `MAX_INSN_SIZE` for instruction copies; a detour buffer's size for
   *   the optimized-probe cache (`kprobe_optinsn_slots`, whose `insn_size` is set by the arch).
   */
  constructor(
    private readonly provider: SlotPageProvider,
    readonly insnSize: number = MAX_INSN_SIZE,
  ) {
    this.perPage = Math.floor(SLOT_PAGE_SIZE / insnSize);
  }

  /**
   * Returns the address of a free slot, allocating a page when every slot is in use.
   * @see kernel/kprobes.c get_insn_slot()
   */
  getInsnSlot(): bigint {
    for (const kip of this.pages) {
      if (kip.nused < this.perPage) {
        const i = kip.slotUsed.indexOf(0);
        kip.slotUsed[i] = 1;
        kip.nused++;
        return kip.insns + BigInt(i * this.insnSize);
      }
    }
    const kip: InsnPage = { insns: this.provider.allocPage(), slotUsed: new Uint8Array(this.perPage), nused: 1 };
    kip.slotUsed[0] = 1;
    this.pages = [kip, ...this.pages];
    return kip.insns;
  }

  /**
   * Returns a slot to the cache; frees its page when it becomes empty, unless it is the last page.
   * @see kernel/kprobes.c free_insn_slot()
   */
  freeInsnSlot(slot: bigint): void {
    const kip = this.pages.find((p) => slot >= p.insns && slot < p.insns + BigInt(SLOT_PAGE_SIZE));
    if (!kip) throw new Error(`free_insn_slot: 0x${slot.toString(16)} is not an instruction slot`);
    const i = Number(slot - kip.insns) / this.insnSize;
    if (!Number.isInteger(i) || kip.slotUsed[i] !== 1) {
      throw new Error(`free_insn_slot: 0x${slot.toString(16)} is not an allocated slot`);
    }
    kip.slotUsed[i] = 0;
    kip.nused--;
    if (kip.nused === 0 && this.pages.length > 1) {
      this.pages = this.pages.filter((p) => p !== kip);
      this.provider.freePage(kip.insns);
    }
  }

  /** Addresses of the slot pages, newest first (they show in kallsyms as `kprobe_insn_page`). */
  pageAddresses(): bigint[] {
    return this.pages.map((p) => p.insns);
  }

  /** The cache's pages, copied (for snapshots: the pages' bytes are saved with memory). */
  save(): InsnSlotsState {
    return Object.freeze({
      pages: Object.freeze(this.pages.map((p) => Object.freeze({ ...p, slotUsed: p.slotUsed.slice() }))),
    });
  }

  /** Puts back the pages of a {@link save}. */
  restore(state: InsnSlotsState): void {
    this.pages = state.pages.map((p) => ({ insns: p.insns, slotUsed: p.slotUsed.slice(), nused: p.nused }));
  }

  /** Slots in use. */
  get used(): number {
    return this.pages.reduce((n, p) => n + p.nused, 0);
  }
}
