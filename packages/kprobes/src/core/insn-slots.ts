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

/**
 * The instruction-slot cache of the x86_64 kprobes port: pages of `PAGE_SIZE / MAX_INSN_SIZE` slots;
 * the first free slot of the first page that has one (newest page first, as `hlist_add_head` orders
 * them); a new page when all are full; an emptied page is freed unless it is the only one left.
 *
 * @see kernel/kprobes.c get_insn_slot(), free_insn_slot() (2.6.12)
 */
export class InsnSlots {
  private pages: InsnPage[] = [];

  constructor(private readonly provider: SlotPageProvider) {}

  /**
   * Returns the address of a free slot, allocating a page when every slot is in use.
   * @see kernel/kprobes.c get_insn_slot()
   */
  getInsnSlot(): bigint {
    for (const kip of this.pages) {
      if (kip.nused < INSNS_PER_PAGE) {
        const i = kip.slotUsed.indexOf(0);
        kip.slotUsed[i] = 1;
        kip.nused++;
        return kip.insns + BigInt(i * MAX_INSN_SIZE);
      }
    }
    const kip: InsnPage = { insns: this.provider.allocPage(), slotUsed: new Uint8Array(INSNS_PER_PAGE), nused: 1 };
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
    const i = Number(slot - kip.insns) / MAX_INSN_SIZE;
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

  /** Slots in use. */
  get used(): number {
    return this.pages.reduce((n, p) => n + p.nused, 0);
  }
}
