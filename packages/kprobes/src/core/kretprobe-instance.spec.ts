import { describe, expect, it } from 'vitest';
import type { Kretprobe } from './kretprobe.js';
import { Instance } from './kretprobe-instance.js';

describe(Instance, () => {
  const rp: Kretprobe = { kp: { symbolName: 'sys_mkdir' } };

  it('should keep retAddr and stackSlot as int32 halves and give them back as unsigned 64-bit values', () => {
    const ri = new Instance(rp, 'owner', new Uint8Array(2));
    ri.retAddr = 0xffffffff8100123an;
    ri.stackSlot = 0xffffc90000007ff8n;
    expect([ri.retLo, ri.retHi]).toEqual([0x8100123a | 0, -1]);
    expect([ri.slotLo, ri.slotHi]).toEqual([0x00007ff8, 0xffffc900 | 0]);
    expect(ri.retAddr).toBe(0xffffffff8100123an);
    expect(ri.stackSlot).toBe(0xffffc90000007ff8n);
    ri.retLo = 0x401000;
    ri.retHi = 0;
    expect(ri.retAddr).toBe(0x401000n);
  });

  it('should copy everything but share nothing mutable', () => {
    const ri = new Instance(rp, 'owner', Uint8Array.of(1, 2));
    ri.retAddr = 0x7fff00001234n;
    ri.pid = 7;
    const c = ri.copy();
    expect([c.rp, c.owner, c.retAddr, c.stackSlot, c.pid, [...c.data]]).toEqual([
      rp,
      'owner',
      0x7fff00001234n,
      0n,
      7,
      [1, 2],
    ]);
    c.data[0] = 9;
    expect(ri.data[0]).toBe(1);
  });
});
