import { AddressSpace, PAGE_SIZE, PageFlags } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { Kallsyms } from '../kallsyms/kallsyms.js';
import { GATE_SIZE, HostCalls } from './host-calls.js';

/** Host calls over a bare address space whose gate pages come from `pages` in order. */
function setup(pages: bigint[]) {
  const space = new AddressSpace();
  for (const p of pages) space.map(p, PAGE_SIZE, PageFlags.Present | PageFlags.Gate);
  const queue = [...pages];
  const calls = new HostCalls(space, new Kallsyms(), () => queue.shift()!);
  return { space, calls };
}

const lo = (a: bigint) => Number(BigInt.asIntN(32, a));
const hi = (a: bigint) => Number(BigInt.asIntN(32, a >> 32n));

describe(HostCalls, () => {
  it('should find a gate by its address halves as by its address', () => {
    const { calls } = setup([0xffffffffa0000000n]);
    const a = calls.define('one', () => 1n);
    const b = calls.define('two', () => 2n);
    expect(b - a).toBe(BigInt(GATE_SIZE));
    expect(calls.lookupHalves(lo(b), hi(b))).toBe(calls.lookup(b));
    expect(calls.lookupHalves(lo(b), hi(b))?.name).toBe('two');
    expect(calls.lookupHalves(lo(b) + 1, hi(b))).toBeUndefined();
    expect(calls.lookupHalves(lo(b), 0)).toBeUndefined();
  });

  it('should tell apart two gates whose addresses share the low half', () => {
    const near = 0xffffffffa0000000n;
    const far = 0x7fffa0000000n;
    const { calls } = setup([near, far]);
    calls.bind('near', near, () => 1n);
    calls.bind('far', far, () => 2n);
    expect(calls.lookupHalves(lo(near), hi(near))?.name).toBe('near');
    expect(calls.lookupHalves(lo(far), hi(far))?.name).toBe('far');
    calls.unbind(near);
    expect(calls.lookupHalves(lo(near), hi(near))).toBeUndefined();
    expect(calls.lookupHalves(lo(far), hi(far))?.name).toBe('far');
  });

  it('should forget an unbound gate, and find one bound again at the same address', () => {
    const page = 0xffffffffa0000000n;
    const { calls } = setup([page]);
    calls.bind('old', page, () => 1n);
    calls.unbind(page);
    expect(calls.lookup(page)).toBeUndefined();
    expect(calls.lookupHalves(lo(page), hi(page))).toBeUndefined();
    calls.bind('new', page, () => 2n);
    expect(calls.lookupHalves(lo(page), hi(page))?.name).toBe('new');
  });

  it('should put back the halves index with the gates of a saved state', () => {
    const page = 0xffffffffa0000000n;
    const { calls } = setup([page]);
    const saved = calls.save();
    calls.bind('later', page, () => 1n);
    calls.restore(saved);
    expect(calls.lookupHalves(lo(page), hi(page))).toBeUndefined();
  });

  it('should answer the inline lookup for inline gates alone, through rebinding and shared low halves', () => {
    const near = 0xffffffffa0000000n;
    const far = 0x7fffa0000000n;
    const { calls } = setup([near, far]);
    calls.bind('near', near, () => 1n, { inline: true });
    calls.bind('far', far, () => 2n, { inline: true });
    expect(calls.inlineHalves(lo(near), hi(near))?.name).toBe('near');
    expect(calls.inlineHalves(lo(far), hi(far))?.name).toBe('far');
    // Bound again as an ordinary gate: gone from the inline index, which still finds the other.
    calls.bind('near-plain', near, () => 3n);
    expect(calls.inlineHalves(lo(near), hi(near))).toBeUndefined();
    expect(calls.lookupHalves(lo(near), hi(near))?.name).toBe('near-plain');
    expect(calls.inlineHalves(lo(far), hi(far))?.name).toBe('far');
    calls.unbind(far);
    expect(calls.inlineHalves(lo(far), hi(far))).toBeUndefined();
    calls.bind('far-again', far, () => 4n, { inline: true });
    expect(calls.inlineHalves(lo(far), hi(far))?.name).toBe('far-again');
    calls.restore(setup([near]).calls.save());
    expect(calls.inlineHalves(lo(far), hi(far))).toBeUndefined();
  });
});
