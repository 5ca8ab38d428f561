import { describe, expect, it } from 'vitest';
import { INSNS_PER_PAGE, InsnSlots, MAX_INSN_SIZE } from './insn-slots.js';

function provider() {
  let next = 0xffffffffa0000000n;
  const freed: bigint[] = [];
  return {
    freed,
    allocPage: () => {
      const p = next;
      next += 0x1000n;
      return p;
    },
    freePage: (a: bigint) => freed.push(a),
  };
}

describe(InsnSlots, () => {
  it('should hand out the first free slot and reuse a freed one', () => {
    const slots = new InsnSlots(provider());
    const a = slots.getInsnSlot();
    const b = slots.getInsnSlot();
    expect(b - a).toBe(BigInt(MAX_INSN_SIZE));
    slots.freeInsnSlot(a);
    expect(slots.getInsnSlot()).toBe(a);
  });

  it('should open a new page when every slot is used, and search it first', () => {
    const p = provider();
    const slots = new InsnSlots(p);
    const first = [];
    for (let i = 0; i < INSNS_PER_PAGE; i++) first.push(slots.getInsnSlot());
    const second = slots.getInsnSlot();
    expect(second).toBe(0xffffffffa0001000n);
    slots.freeInsnSlot(first[3]);
    // The newest page is searched first (hlist_add_head), so its next slot comes before the hole.
    expect(slots.getInsnSlot()).toBe(0xffffffffa0001010n);
    expect(slots.pageAddresses()).toEqual([0xffffffffa0001000n, 0xffffffffa0000000n]);
  });

  it('should free an emptied page unless it is the last one', () => {
    const p = provider();
    const slots = new InsnSlots(p);
    const all = [];
    for (let i = 0; i <= INSNS_PER_PAGE; i++) all.push(slots.getInsnSlot());
    slots.freeInsnSlot(all[INSNS_PER_PAGE]);
    expect(p.freed).toEqual([0xffffffffa0001000n]);
    for (let i = 0; i < INSNS_PER_PAGE; i++) slots.freeInsnSlot(all[i]);
    expect(p.freed).toHaveLength(1);
    expect(slots.pageAddresses()).toEqual([0xffffffffa0000000n]);
    expect(slots.used).toBe(0);
  });

  it('should refuse to free an address that is not an allocated slot', () => {
    const slots = new InsnSlots(provider());
    const a = slots.getInsnSlot();
    expect(() => slots.freeInsnSlot(a + 1n)).toThrow(/not an allocated slot/);
    expect(() => slots.freeInsnSlot(0x1000n)).toThrow(/not an instruction slot/);
  });

  it('should cut pages into slots of the size given (kprobe_optinsn_slots)', () => {
    const p = provider();
    const slots = new InsnSlots(p, 128);
    const all = Array.from({ length: 33 }, () => slots.getInsnSlot());
    expect(all[1] - all[0]).toBe(128n);
    expect(all[32] - all[0]).toBe(0x1000n);
  });

  it('should go back to the pages and slots of a save', () => {
    const slots = new InsnSlots(provider());
    const a = slots.getInsnSlot();
    const saved = slots.save();
    const b = slots.getInsnSlot();
    slots.restore(saved);
    expect(slots.used).toBe(1);
    expect(slots.getInsnSlot()).toBe(b);
    slots.freeInsnSlot(a);
    expect(saved.pages[0].nused).toBe(1);
  });
});
