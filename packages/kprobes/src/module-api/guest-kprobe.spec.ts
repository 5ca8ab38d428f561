import { AddressSpace, PageFlags } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { GuestKprobe } from './guest-kprobe.js';
import { KprobeLayout } from './guest-layout.js';

const BASE = 0xffff888000000000n;

function guestStruct() {
  const space = new AddressSpace();
  space.map(BASE, 4096, PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
  const name = BASE + 0x800n;
  space.write(name, new TextEncoder().encode('vfs_read\0'));
  space.writeU64(BASE + BigInt(KprobeLayout.symbolName), name);
  space.writeU32(BASE + BigInt(KprobeLayout.offset), 4);
  space.writeU32(BASE + BigInt(KprobeLayout.flags), 2);
  space.writeU64(BASE + BigInt(KprobeLayout.preHandler), 0xffffffffa0000000n);
  return space;
}

describe(GuestKprobe, () => {
  it('should read what the caller filled in', () => {
    const space = guestStruct();
    const kp = new GuestKprobe(space, BASE);
    expect([kp.symbolName, kp.offset, kp.addr, kp.flags, kp.nmissed]).toEqual(['vfs_read', 4, undefined, 2, 0]);
    expect(kp.handlerAt(KprobeLayout.preHandler)).toBe(0xffffffffa0000000n);
    expect(kp.handlerAt(KprobeLayout.postHandler)).toBe(0n);
  });

  it('should write addr, flags and nmissed through to the struct until detached', () => {
    const space = guestStruct();
    const kp = new GuestKprobe(space, BASE);
    kp.addr = 0xffffffff81000000n;
    kp.flags = 1;
    kp.nmissed = 3;
    expect(space.readU64(BASE + BigInt(KprobeLayout.addr))).toBe(0xffffffff81000000n);
    expect(space.readU32(BASE + BigInt(KprobeLayout.flags))).toBe(1);
    expect(space.readU64(BASE + BigInt(KprobeLayout.nmissed))).toBe(3n);
    kp.detach();
    kp.nmissed = 4;
    expect(kp.nmissed).toBe(4);
    expect(space.readU64(BASE + BigInt(KprobeLayout.nmissed))).toBe(3n);
  });

  it('should tell a readable struct from a bad pointer', () => {
    const space = guestStruct();
    expect(GuestKprobe.readable(space, BASE)).toBe(true);
    expect(GuestKprobe.readable(space, BASE + 4090n)).toBe(false);
    space.writeU64(BASE + BigInt(KprobeLayout.symbolName), 0x10n);
    expect(GuestKprobe.readable(space, BASE)).toBe(false);
  });
});
