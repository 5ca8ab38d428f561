import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import { MemoryError } from './memory-error.js';
import { PageFlags } from './page-flags.js';

const P = PageFlags.Present;
const W = PageFlags.Writable;

describe(AddressSpace, () => {
  it('should map zero-filled pages and refuse to map one twice', () => {
    const as = new AddressSpace();
    as.map(0x1000n, 8192, P | W);
    expect([...as.read(0x1ffen, 4)]).toEqual([0, 0, 0, 0]);
    expect(() => as.map(0x2000n, 4096, P)).toThrow(MemoryError);
    expect(as.isMapped(0x1000n, 8192)).toBe(true);
    expect(as.isMapped(0x1000n, 8193)).toBe(false);
  });

  it("should map a copy of whole pages, none of a reused slot's old bytes in it, and refuse to map one twice", () => {
    const as = new AddressSpace();
    // A page given back to the page arena: the next page may take its slot.
    as.map(0x9000n, 4096, P | W);
    as.write(0x9000n, new Uint8Array(4096).fill(0xee));
    as.unmap(0x9000n, 4096);
    const bytes = Uint8Array.from({ length: 8192 }, (_, k) => (k * 7) & 0xff);
    as.mapCopy(0x1000n, bytes, P | W);
    expect(as.read(0x1000n, 8192)).toEqual(bytes);
    expect(as.flagsAt(0x1000n)).toBe(P | W);
    // A copy: the source changes alone.
    bytes[5] ^= 0xff;
    expect(as.readU8(0x1005n)).toBe(35);
    expect(() => as.mapCopy(0x2000n, bytes.subarray(0, 4096), P)).toThrow(MemoryError);
    expect(() => as.mapCopy(0x3800n, bytes.subarray(0, 4096), P)).toThrow(RangeError);
    expect(() => as.mapCopy(0x4000n, bytes.subarray(0, 100), P)).toThrow(RangeError);
    expect(as.isMapped(0x3000n)).toBe(false);
  });

  it('should read and write values across a page boundary in little-endian order', () => {
    const as = new AddressSpace();
    as.map(0x1000n, 8192, P);
    as.writeU64(0x1ffcn, 0x1122334455667788n);
    expect(as.readU64(0x1ffcn)).toBe(0x1122334455667788n);
    expect(as.readU32(0x2000n)).toBe(0x11223344);
    expect(as.readU16(0x1ffcn)).toBe(0x7788);
    expect(as.readU8(0x1ffdn)).toBe(0x77);
  });

  it('should throw MemoryError naming the address of an unmapped byte', () => {
    const as = new AddressSpace();
    as.map(0x1000n, 4096, P);
    expect(() => as.read(0x1ff0n, 0x20)).toThrow(expect.objectContaining({ address: 0x2000n }));
  });

  it('should stop readCString at NUL or max', () => {
    const as = new AddressSpace();
    as.map(0x1000n, 4096, P);
    as.write(0x1000n, new TextEncoder().encode('kprobe\0x'));
    expect(as.readCString(0x1000n, 64)).toBe('kprobe');
    expect(as.readCString(0x1000n, 3)).toBe('kpr');
  });

  it('should change flags with protect and forget pages with unmap', () => {
    const as = new AddressSpace();
    as.map(0x1000n, 4096, P | W);
    as.protect(0x1000n, 4096, P | PageFlags.NoExecute);
    expect(as.flagsAt(0x1000n)).toBe(P | PageFlags.NoExecute);
    as.unmap(0x1000n, 4096);
    expect(as.flagsAt(0x1000n)).toBe(0);
  });

  it('should share the upper canonical half with its kernel space', () => {
    const kernel = new AddressSpace();
    kernel.map(0xffffffff81000000n, 4096, P | W);
    const a = new AddressSpace(kernel);
    const b = new AddressSpace(kernel);
    a.map(0x400000n, 4096, P);
    a.writeU32(0xffffffff81000000n, 0xdeadbeef);
    expect(b.readU32(0xffffffff81000000n)).toBe(0xdeadbeef);
    expect(b.isMapped(0x400000n)).toBe(false);
    a.map(0xffff888000000000n, 4096, P);
    expect(kernel.isMapped(0xffff888000000000n)).toBe(true);
  });

  it('should list pages in ascending address order with the shared kernel half last', () => {
    const kernel = new AddressSpace();
    kernel.map(0xffffffff81000000n, 4096, P);
    const user = new AddressSpace(kernel);
    user.map(0x7000n, 4096, P);
    user.map(0x3000n, 4096, P);
    expect([...user.pages()].map((p) => p.address)).toEqual([0x3000n, 0x7000n, 0xffffffff81000000n]);
  });

  it('should share page objects with another space, bytes and decoded code included', () => {
    const a = new AddressSpace();
    a.map(0x400000n, 8192, P);
    a.writeU32(0x401000n, 0xdeadbeef);
    const b = new AddressSpace();
    b.share(a, 0x400000n, 8192);
    expect(b.readU32(0x401000n)).toBe(0xdeadbeef);
    expect(b.lookup(0x401000, 0)).toBe(a.lookup(0x401000, 0));
    a.writeU8(0x401000n, 0x90);
    expect(b.readU8(0x401000n)).toBe(0x90);
    b.unmap(0x400000n, 4096);
    expect(a.isMapped(0x400000n)).toBe(true);
  });

  it('should refuse to share an unmapped page, a mapped one or the kernel half, sharing none', () => {
    const a = new AddressSpace();
    a.map(0x400000n, 4096, P);
    const b = new AddressSpace();
    b.map(0x401000n, 4096, P);
    expect(() => b.share(a, 0x400000n, 8192)).toThrow(MemoryError);
    expect(b.isMapped(0x400000n)).toBe(false);
    expect(() => b.share(a, 0xffffffff81000000n, 4096)).toThrow(/kernel half/);
  });
});
