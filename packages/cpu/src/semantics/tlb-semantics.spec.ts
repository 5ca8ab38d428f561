import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AddressSpace } from '../address-space.js';
import { Cpu } from '../cpu.js';
import { PageFlags } from '../page-flags.js';
import { tlbSlot } from './tlb-semantics.js';

const slotOf = new Function('lo', 'hi', `return ${tlbSlot('lo', 'hi')};`) as (lo: number, hi: number) => number;
const RW = PageFlags.Present | PageFlags.Writable;
const halves = (a: bigint) => [Number(BigInt.asIntN(32, a)), Number(BigInt.asIntN(32, a >> 32n))] as const;

describe(tlbSlot, () => {
  it('should be the slot CpuCore fills and reads, for every address', () => {
    const cpu = new Cpu({ addressSpace: new AddressSpace(), jit: false });
    fc.assert(
      fc.property(fc.integer({ min: -0x80000000, max: 0x7fffffff }), fc.integer(), (lo, hi) => {
        const slot = slotOf(lo, hi | 0);
        expect(slot).toBe(cpu.dataSlot(lo, hi | 0));
        expect(slot).toBeGreaterThanOrEqual(0);
        expect(slot).toBeLessThan(256);
      }),
    );
  });

  it('should keep a stack page and a buffer page at the same low address both cached', () => {
    // The cpu bench's stack and buffer: the same page number in the low half, kernel regions apart.
    const stack = 0xffffc9000000f000n;
    const buffer = 0xffff88800000f000n;
    const as = new AddressSpace();
    as.map(stack, 4096, RW);
    as.map(buffer, 4096, RW);
    as.writeU64(stack + 8n, 0x1111n);
    as.writeU64(buffer + 8n, 0x2222n);
    const cpu = new Cpu({ addressSpace: as, jit: false });
    const [sl, sh] = halves(stack + 8n);
    const [bl, bh] = halves(buffer + 8n);
    expect(cpu.rd64(sl, sh)).toBe(0x1111);
    expect(cpu.rd64(bl, bh)).toBe(0x2222);
    cpu.wr32(sl, sh, 0x3333);
    cpu.wr32(bl, bh, 0x4444);
    // Both translations are still there after the other's, for reads and for writes.
    for (const [lo, hi] of [halves(stack), halves(buffer)]) {
      const slot = cpu.dataSlot(lo, hi);
      expect([cpu.rTagLo[slot], cpu.rTagHi[slot]]).toEqual([lo, hi]);
      expect([cpu.wTagLo[slot], cpu.wTagHi[slot]]).toEqual([lo, hi]);
    }
    expect(as.readU64(stack + 8n)).toBe(0x3333n);
    expect(as.readU64(buffer + 8n)).toBe(0x4444n);
  });
});
