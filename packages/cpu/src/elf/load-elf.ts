import { PAGE_SIZE, PageFlags } from '../page-flags.js';
import { USER_HALF_END } from './elf-constants.js';
import { ElfError, hex } from './elf-error.js';
import type { ElfFile, ElfSegment } from './elf-file.js';

/** What {@link loadElf} needs of an address space (`AddressSpace` satisfies it). */
export interface ElfLoadTarget {
  map(address: bigint, size: number, flags: number): void;
  unmap(address: bigint, size: number): void;
  write(address: bigint, bytes: Uint8Array): void;
  isMapped(address: bigint, length?: number): boolean;
}

/** Options of {@link loadElf}. */
export interface ElfLoadOptions {
  /** Map pages with PageFlags.User (a ring-3 program); every segment must then lie in the lower half. */
  readonly user?: boolean;
}

/** A PT_LOAD segment as mapped. */
export interface LoadedSegment {
  /** Program header index. */
  readonly index: number;
  readonly vaddr: bigint;
  readonly memSize: number;
  readonly fileSize: number;
  /** The {@link PageFlags} of the segment's own pages (a page shared with another segment gets the union). */
  readonly flags: number;
}

/** The result of {@link loadElf}. */
export interface ElfLoadResult {
  readonly entry: bigint;
  readonly segments: readonly LoadedSegment[];
}

const PAGE = BigInt(PAGE_SIZE);

/**
 * Maps an ET_EXEC image into `space`: each PT_LOAD gets pages that are Present, Writable if PF_W,
 * NoExecute unless PF_X, User if `options.user`; file bytes are copied and the rest (bss) is zero.
 * All-or-nothing: every segment is validated (no overlap with another segment or with pages already
 * mapped) before the first page is mapped, and a failure while mapping unmaps what was mapped.
 * Two segments may share a page (not a byte): the page gets the union of their permissions.
 *
 * @throws ElfError BAD_TYPE (not ET_EXEC), BAD_SEGMENT (no PT_LOAD, overlap, user segment in the
 *   kernel half), LOAD_CONFLICT (a page is already mapped)
 * @see fs/binfmt_elf.c load_elf_binary(), elf_map(), padzero()
 * @example
 * const { entry } = loadElf(parseElf(bytes, 'x.elf'), space);
 */
export function loadElf(file: ElfFile, space: ElfLoadTarget, options: ElfLoadOptions = {}): ElfLoadResult {
  const fail = (code: 'BAD_TYPE' | 'BAD_SEGMENT' | 'LOAD_CONFLICT', detail: string) =>
    new ElfError(code, detail, file.name || undefined);
  if (file.type !== 'exec') throw fail('BAD_TYPE', 'an ET_REL object cannot be loaded as an image (link it first)');
  // Step 1: validate the segments among themselves.
  const segments = file.segments.filter((s) => s.memSize > 0).sort((a, b) => (a.vaddr < b.vaddr ? -1 : 1));
  if (segments.length === 0) throw fail('BAD_SEGMENT', 'no PT_LOAD segment to load');
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    const end = s.vaddr + BigInt(s.memSize);
    if (options.user && end > USER_HALF_END) {
      throw fail('BAD_SEGMENT', `program header ${s.index}: user segment at ${hex(s.vaddr)} is in the kernel half`);
    }
    const next = segments[i + 1];
    if (next && next.vaddr < end) {
      throw fail('BAD_SEGMENT', `program headers ${s.index} and ${next.index} overlap at ${hex(next.vaddr)}`);
    }
  }
  // Step 2: plan every page with its flags, and refuse pages the space already maps.
  const plan = new Map<bigint, number>();
  for (const s of segments) {
    const flags = segmentFlags(s, options.user === true);
    for (let page = s.vaddr / PAGE; page * PAGE < s.vaddr + BigInt(s.memSize); page++) {
      const prior = plan.get(page);
      plan.set(page, prior === undefined ? flags : mergeFlags(prior, flags));
    }
  }
  for (const page of plan.keys()) {
    if (space.isMapped(page * PAGE)) {
      throw fail('LOAD_CONFLICT', `page ${hex(page * PAGE)} is already mapped`);
    }
  }
  // Step 3: map runs of consecutive pages with equal flags; undo everything if the space refuses one.
  const mapped: [bigint, number][] = [];
  try {
    for (const [start, count, flags] of pageRuns(plan)) {
      space.map(start * PAGE, count * PAGE_SIZE, flags);
      mapped.push([start * PAGE, count * PAGE_SIZE]);
    }
    // Step 4: copy file bytes; the rest of each fresh page is already zero (bss).
    for (const s of segments) {
      if (s.fileSize > 0) space.write(s.vaddr, file.bytes.subarray(s.offset, s.offset + s.fileSize));
    }
  } catch (error) {
    for (const [address, size] of mapped) space.unmap(address, size);
    throw error;
  }
  return {
    entry: file.entry,
    segments: segments.map((s) => ({
      index: s.index,
      vaddr: s.vaddr,
      memSize: s.memSize,
      fileSize: s.fileSize,
      flags: segmentFlags(s, options.user === true),
    })),
  };
}

function segmentFlags(s: ElfSegment, user: boolean): number {
  return (
    PageFlags.Present |
    (s.write ? PageFlags.Writable : 0) |
    (s.execute ? 0 : PageFlags.NoExecute) |
    (user ? PageFlags.User : 0)
  );
}

/** The union of two segments' permissions on a shared page: NX only if both are NX. */
function mergeFlags(a: number, b: number): number {
  const nx = a & b & PageFlags.NoExecute;
  return ((a | b) & ~PageFlags.NoExecute) | nx;
}

/** `[firstPage, pageCount, flags]` for each run of consecutive pages with equal flags. */
function* pageRuns(plan: Map<bigint, number>): Generator<[bigint, number, number]> {
  const pages = [...plan.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let i = 0;
  while (i < pages.length) {
    const start = pages[i];
    const flags = plan.get(start)!;
    let count = 1;
    while (
      i + count < pages.length &&
      pages[i + count] === start + BigInt(count) &&
      plan.get(pages[i + count]) === flags
    ) {
      count++;
    }
    yield [start, count, flags];
    i += count;
  }
}
