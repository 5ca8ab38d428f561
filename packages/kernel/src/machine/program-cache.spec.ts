import { AddressSpace, PageFlags } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { sampleProgram } from '../sample-image.js';
import { ProgramCache } from './program-cache.js';

function pagesOf(space: AddressSpace) {
  return [...space.pageMap.entries()].map(([key, page]) => ({ address: BigInt(key) << 12n, page }));
}

describe(ProgramCache, () => {
  const kernel = new AddressSpace();
  const bytes = sampleProgram('cat')!;

  it('should share the read-only pages of two loads of a program and copy the writable ones', () => {
    const cache = new ProgramCache(kernel);
    const a = new AddressSpace(kernel);
    const b = new AddressSpace(kernel);
    const elf = cache.load('cat', bytes, a);
    cache.load('cat', bytes, b);
    expect(a.isMapped(elf.entry)).toBe(true);
    const pages = pagesOf(a);
    expect(pages.some((p) => p.page.flags & PageFlags.Writable)).toBe(true);
    expect(pages.some((p) => !(p.page.flags & PageFlags.Writable))).toBe(true);
    for (const { address, page } of pages) {
      const other = b.pageMap.get(Number(address >> 12n))!;
      expect(other.data).toEqual(page.data);
      expect(other === page).toBe((page.flags & PageFlags.Writable) === 0);
    }
  });

  it('should load again when the program bytes change', () => {
    const cache = new ProgramCache(kernel);
    const a = new AddressSpace(kernel);
    const elf = cache.load('cat', bytes, a);
    const text = elf.segments.find((s) => s.vaddr <= elf.entry && elf.entry < s.vaddr + BigInt(s.fileSize))!;
    const changed = bytes.slice();
    changed[text.offset + Number(elf.entry - text.vaddr)] ^= 0xff;
    const b = new AddressSpace(kernel);
    cache.load('cat', changed, b);
    expect(b.readU8(elf.entry)).toBe(a.readU8(elf.entry) ^ 0xff);
  });

  it('should throw the ELF error of a corrupt program and cache nothing', () => {
    const cache = new ProgramCache(kernel);
    expect(() => cache.load('bad', new Uint8Array([0x7f, 0x45, 0x4c]), new AddressSpace(kernel))).toThrow(/ELF|elf/);
    expect(() => cache.load('bad', new Uint8Array([0x7f, 0x45, 0x4c]), new AddressSpace(kernel))).toThrow(/ELF|elf/);
  });
});
