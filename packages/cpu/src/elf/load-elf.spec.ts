import { describe, expect, it } from 'vitest';
import { AddressSpace } from '../address-space.js';
import { PageFlags } from '../page-flags.js';
import { ElfError } from './elf-error.js';
import type { ElfFile, ElfSegment } from './elf-file.js';
import { loadElf } from './load-elf.js';

const P = PageFlags;
const BASE = 0xffffffff81000000n;

function segment(index: number, vaddr: bigint, data: number[], memSize: number, rwx: string): ElfSegment {
  return {
    index,
    vaddr,
    offset: 0x100 * index,
    fileSize: data.length,
    memSize,
    align: 0,
    read: rwx.includes('r'),
    write: rwx.includes('w'),
    execute: rwx.includes('x'),
  };
}

/** An ElfFile whose segment `i` takes its file bytes from offset 0x100 * i. */
function image(segments: [bigint, number[], number, string][], type: 'exec' | 'rel' = 'exec'): ElfFile {
  const bytes = new Uint8Array(0x100 * segments.length);
  segments.forEach(([, data], i) => {
    bytes.set(data, 0x100 * i);
  });
  return {
    name: 'img.elf',
    bytes,
    type,
    entry: segments[0]?.[0] ?? 0n,
    segments: segments.map(([vaddr, data, memSize, rwx], i) => segment(i, vaddr, data, memSize, rwx)),
    sections: [],
    symbols: [],
    relocations: [],
  };
}

function refusal(run: () => unknown): ElfError {
  try {
    run();
  } catch (error) {
    if (error instanceof ElfError) return error;
    throw error;
  }
  throw new Error('loadElf accepted the image');
}

describe(loadElf, () => {
  it('should map each PT_LOAD with its permissions, copy file bytes and zero the bss', () => {
    const space = new AddressSpace();
    const result = loadElf(
      image([
        [BASE, [0x90, 0xc3], 0x1800, 'rx'],
        [BASE + 0x2000n, [1, 2, 3], 0x2000, 'rw'],
        [BASE + 0x4000n, [7], 1, 'r'],
      ]),
      space,
    );
    expect(result.entry).toBe(BASE);
    expect(space.flagsAt(BASE)).toBe(P.Present);
    expect(space.flagsAt(BASE + 0x1000n)).toBe(P.Present);
    expect(space.flagsAt(BASE + 0x2000n)).toBe(P.Present | P.Writable | P.NoExecute);
    expect(space.flagsAt(BASE + 0x3fffn)).toBe(P.Present | P.Writable | P.NoExecute);
    expect(space.flagsAt(BASE + 0x4000n)).toBe(P.Present | P.NoExecute);
    expect(space.flagsAt(BASE + 0x5000n)).toBe(0);
    expect([...space.read(BASE, 3)]).toEqual([0x90, 0xc3, 0]);
    expect([...space.read(BASE + 0x2000n, 4)]).toEqual([1, 2, 3, 0]);
    expect(space.read(BASE + 0x2003n, 0x1ffd).every((b) => b === 0)).toBe(true);
    expect(result.segments.map((s) => s.flags)).toEqual([P.Present, P.Present | P.Writable | P.NoExecute, 9]);
  });

  it('should add PageFlags.User for a user program', () => {
    const space = new AddressSpace();
    loadElf(image([[0x400000n, [0xc3], 1, 'rx']]), space, { user: true });
    expect(space.flagsAt(0x400000n)).toBe(P.Present | P.User);
  });

  it('should give a page shared by two segments the union of their permissions', () => {
    const space = new AddressSpace();
    loadElf(
      image([
        [BASE, [0xc3], 0x10, 'rx'],
        [BASE + 0x800n, [5], 0x10, 'rw'],
      ]),
      space,
    );
    expect(space.flagsAt(BASE)).toBe(P.Present | P.Writable);
    expect(space.readU8(BASE + 0x800n)).toBe(5);
  });

  it('should refuse an ET_REL with BAD_TYPE', () => {
    const error = refusal(() => loadElf(image([[BASE, [0xc3], 1, 'rx']], 'rel'), new AddressSpace()));
    expect(error.code).toBe('BAD_TYPE');
    expect(error.message).toBe('img.elf: an ET_REL object cannot be loaded as an image (link it first)');
  });

  it('should refuse an image with nothing to load with BAD_SEGMENT', () => {
    expect(refusal(() => loadElf(image([]), new AddressSpace())).code).toBe('BAD_SEGMENT');
  });

  it('should refuse overlapping segments with BAD_SEGMENT and map nothing', () => {
    const space = new AddressSpace();
    const error = refusal(() =>
      loadElf(
        image([
          [BASE, [0xc3], 0x2000, 'rx'],
          [BASE + 0x1ff0n, [1], 0x10, 'rw'],
        ]),
        space,
      ),
    );
    expect(error.message).toBe('img.elf: program headers 0 and 1 overlap at 0xffffffff81001ff0');
    expect([...space.pages()]).toEqual([]);
  });

  it('should refuse a user segment in the kernel half with BAD_SEGMENT', () => {
    const error = refusal(() => loadElf(image([[BASE, [0xc3], 1, 'rx']]), new AddressSpace(), { user: true }));
    expect(error.code).toBe('BAD_SEGMENT');
    expect(error.message).toMatch('is in the kernel half');
  });

  it('should refuse pages already mapped with LOAD_CONFLICT before mapping anything (all-or-nothing)', () => {
    const space = new AddressSpace();
    space.map(BASE + 0x3000n, 0x1000, P.Present);
    const error = refusal(() =>
      loadElf(
        image([
          [BASE, [0xc3], 0x1000, 'rx'],
          [BASE + 0x2000n, [1], 0x2000, 'rw'],
        ]),
        space,
      ),
    );
    expect(error.code).toBe('LOAD_CONFLICT');
    expect(error.message).toBe('img.elf: page 0xffffffff81003000 is already mapped');
    expect(space.isMapped(BASE)).toBe(false);
    expect(space.isMapped(BASE + 0x2000n)).toBe(false);
  });
});
