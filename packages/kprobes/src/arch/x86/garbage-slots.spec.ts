import { describe, expect, it } from 'vitest';
import { InsnSlots } from '../../core/insn-slots.js';
import { GarbageSlots } from './garbage-slots.js';

function setup() {
  const freedPages: bigint[] = [];
  let next = 0xffffffffa0000000n;
  const slots = new InsnSlots({
    allocPage: () => {
      const p = next;
      next += 0x1000n;
      return p;
    },
    freePage: (p) => freedPages.push(p),
  });
  const rips: bigint[] = [0n, 0n];
  return { slots, rips, freedPages, garbage: new GarbageSlots(slots, () => rips) };
}

describe(GarbageSlots, () => {
  it('should free a slot no CPU is executing at once', () => {
    const { slots, garbage } = setup();
    const a = slots.getInsnSlot();
    let unmarked = 0;
    garbage.freeInsnSlot(a, () => unmarked++);
    expect(slots.used).toBe(0);
    expect(unmarked).toBe(1);
    expect(garbage.nrGarbage).toBe(0);
  });

  it('should keep a slot dirty while a CPU is stopped inside it, and free it once the CPU left', () => {
    const { slots, rips, garbage } = setup();
    const a = slots.getInsnSlot();
    rips[1] = a + 3n; // on the jump back after a 3-byte copy
    let unmarked = 0;
    garbage.freeInsnSlot(a, () => unmarked++);
    expect(slots.used).toBe(1);
    expect(garbage.nrGarbage).toBe(1);
    // Not reused while dirty.
    expect(slots.getInsnSlot()).not.toBe(a);
    expect(garbage.collectGarbageSlots()).toBe(0);
    expect(unmarked).toBe(0);
    rips[1] = 0xffffffff81001003n;
    expect(garbage.collectGarbageSlots()).toBe(1);
    expect(unmarked).toBe(1);
    expect(garbage.nrGarbage).toBe(0);
    expect(slots.getInsnSlot()).toBe(a);
  });

  it('should not count a CPU in the next slot as inside this one', () => {
    const { slots, rips, garbage } = setup();
    const a = slots.getInsnSlot();
    rips[0] = a + 16n;
    garbage.freeInsnSlot(a);
    expect(garbage.nrGarbage).toBe(0);
  });
});
