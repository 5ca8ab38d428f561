import { describe, expect, it } from 'vitest';
import { AddressSpace, sharedPageWrites } from './address-space.js';
import { PageFlags } from './page-flags.js';
import { TEST_LAYOUT, testMachine } from './test-machine.fixture.js';

const key = (a: bigint) => Number(a >> 12n);

describe('AddressSpace.takeSoftDirty', () => {
  it('should record host writes, mappings and protections in the space that owns the page', () => {
    const kernel = new AddressSpace();
    kernel.map(0xffff888000000000n, 4096, PageFlags.Present | PageFlags.Writable);
    const user = new AddressSpace(kernel);
    user.map(0x1000n, 8192, PageFlags.Present | PageFlags.Writable);
    expect([...user.takeSoftDirty()]).toEqual([1, 2]);
    expect([...kernel.takeSoftDirty()]).toEqual([key(0xffff888000000000n)]);
    expect(user.takeSoftDirty().size).toBe(0);
    user.writeU8(0x2001n, 7);
    user.writeU64(0xffff888000000010n, 1n);
    expect([...user.takeSoftDirty()]).toEqual([2]);
    expect([...kernel.takeSoftDirty()]).toEqual([key(0xffff888000000000n)]);
    user.write(0x1ff0n, new Uint8Array(32));
    expect([...user.takeSoftDirty()].sort()).toEqual([1, 2]);
    user.protect(0x1000n, 4096, PageFlags.Present);
    user.unmap(0x2000n, 4096);
    expect([...user.takeSoftDirty()].sort()).toEqual([1, 2]);
    expect(user.lookupForWrite(0x1000, 0)).toBeDefined();
    expect([...user.takeSoftDirty()]).toEqual([1]);
  });

  it('should record a CPU write once per write translation, and again after flushWriteTlb', () => {
    // mov byte [rdi], 1 ; mov byte [rdi+1], 2 ; hlt  (rdi = data page)
    const { cpu, as } = testMachine([0xc6, 0x07, 0x01, 0xc6, 0x47, 0x01, 0x02]);
    cpu.setReg(7, TEST_LAYOUT.data);
    as.takeSoftDirty();
    cpu.flushWriteTlb();
    cpu.run(10);
    expect([...as.takeSoftDirty()]).toEqual([key(TEST_LAYOUT.data)]);
    // The translation is still held: the same stores again record nothing.
    cpu.rip = TEST_LAYOUT.code;
    cpu.run(10);
    expect(as.takeSoftDirty().size).toBe(0);
    cpu.flushWriteTlb();
    cpu.rip = TEST_LAYOUT.code;
    cpu.run(10);
    expect([...as.takeSoftDirty()]).toEqual([key(TEST_LAYOUT.data)]);
    expect(as.readU16(TEST_LAYOUT.data)).toBe(0x0201);
  });

  it('should count writes to a page two spaces share', () => {
    const a = new AddressSpace();
    a.map(0x1000n, 4096, PageFlags.Present);
    const b = new AddressSpace();
    b.share(a, 0x1000n, 4096);
    const before = sharedPageWrites.value;
    a.writeU8(0x1000n, 1);
    expect(sharedPageWrites.value).toBe(before + 1);
    expect(b.readU8(0x1000n)).toBe(1);
  });

  it('should list with the root space the spaces whose soft-dirty set filled, each once until taken', () => {
    const kernel = new AddressSpace();
    kernel.map(0xffff888000000000n, 4096, PageFlags.Present | PageFlags.Writable);
    const a = new AddressSpace(kernel);
    const b = new AddressSpace(kernel);
    a.map(0x1000n, 4096, PageFlags.Present | PageFlags.Writable);
    b.map(0x1000n, 4096, PageFlags.Present | PageFlags.Writable);
    expect(new Set(kernel.takeDirtySpaces())).toEqual(new Set([kernel, a, b]));
    expect(kernel.takeDirtySpaces().size).toBe(0);
    // Still dirty (nobody took a's set): a second write lists nothing new.
    a.writeU8(0x1000n, 1);
    expect(kernel.takeDirtySpaces().size).toBe(0);
    for (const s of [kernel, a, b]) s.takeSoftDirty();
    a.writeU8(0x1000n, 2);
    a.writeU8(0x1001n, 3);
    b.writeU64(0xffff888000000008n, 1n); // the kernel half: the kernel space's page
    expect([...kernel.takeDirtySpaces()]).toEqual([a, kernel]);
    expect(a.takeDirtySpaces().size).toBe(0);
    // A CPU's write translation lists its space too.
    const { cpu, as } = testMachine([0xc6, 0x07, 0x01]);
    cpu.setReg(7, TEST_LAYOUT.data);
    as.takeSoftDirty();
    as.takeDirtySpaces();
    cpu.flushWriteTlb();
    cpu.run(1);
    expect([...as.takeDirtySpaces()]).toEqual([as]);
  });
});
