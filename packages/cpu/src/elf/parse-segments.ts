import { ELF64_SIZE, KERNEL_HALF_START, PF, PT_LOAD, USER_HALF_END } from './elf-constants.js';
import { hex } from './elf-error.js';
import type { ElfSegment } from './elf-file.js';
import type { ElfReader } from './elf-reader.js';
import type { ElfHeader } from './parse-elf-header.js';

const TWO_64 = 1n << 64n;

/**
 * Reads every program header (each bounds-checked, as is the file data it describes) and returns the
 * PT_LOAD ones, validated: `p_filesz <= p_memsz`, `p_align` a power of two with
 * `p_vaddr ≡ p_offset (mod p_align)`, and `[p_vaddr, p_vaddr + p_memsz)` inside one canonical half.
 *
 * @see fs/binfmt_elf.c load_elf_phdrs(), elf_map()
 */
export function parseSegments(r: ElfReader, header: ElfHeader): ElfSegment[] {
  const segments: ElfSegment[] = [];
  for (let i = 0; i < header.phnum; i++) {
    const at = r.require(header.phoff + BigInt(i * ELF64_SIZE.phdr), ELF64_SIZE.phdr, `program header ${i}`);
    const type = r.u32(at);
    const flags = r.u32(at + 4);
    const offset = r.u64(at + 8);
    const vaddr = r.u64(at + 16);
    const fileSize = r.u64(at + 32);
    const memSize = r.u64(at + 40);
    const align = r.u64(at + 48);
    const what = `program header ${i}${type === PT_LOAD ? ' (PT_LOAD)' : ''}`;
    if (fileSize > 0n) r.require(offset, fileSize, `${what} data`);
    if (type !== PT_LOAD) continue;
    const bad = (why: string) => r.error('BAD_SEGMENT', `${what}: ${why}`);
    if (fileSize > memSize) throw bad(`p_filesz ${hex(fileSize)} exceeds p_memsz ${hex(memSize)}`);
    if (align > 1n) {
      if ((align & (align - 1n)) !== 0n) throw bad(`p_align ${hex(align)} is not a power of two`);
      if (vaddr % align !== offset % align) {
        throw bad(`p_vaddr ${hex(vaddr)} and p_offset ${hex(offset)} differ modulo p_align ${hex(align)}`);
      }
    }
    const end = vaddr + memSize;
    const lowHalf = end <= USER_HALF_END;
    const highHalf = vaddr >= KERNEL_HALF_START && end <= TWO_64;
    if (!lowHalf && !highHalf) {
      throw bad(`[${hex(vaddr)}, ${hex(end)}) is not inside one canonical half of the address space`);
    }
    segments.push({
      index: i,
      vaddr,
      offset: Number(offset),
      fileSize: Number(fileSize),
      memSize: Number(memSize),
      align: Number(align),
      read: (flags & PF.R) !== 0,
      write: (flags & PF.W) !== 0,
      execute: (flags & PF.X) !== 0,
    });
  }
  return segments;
}
