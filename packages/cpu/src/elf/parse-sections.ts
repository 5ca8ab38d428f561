import { ELF64_SIZE, SHT } from './elf-constants.js';
import { hex } from './elf-error.js';
import type { ElfSection } from './elf-file.js';
import type { ElfReader } from './elf-reader.js';
import type { ElfHeader } from './parse-elf-header.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

interface RawSection {
  readonly nameIndex: number;
  readonly type: number;
  readonly flags: bigint;
  readonly addr: bigint;
  readonly offset: bigint;
  readonly size: bigint;
  readonly link: number;
  readonly info: number;
  readonly addralign: bigint;
  readonly entsize: bigint;
}

/**
 * Reads every section header, resolves names through the `e_shstrndx` string table, and bounds-checks
 * each section's file data (except SHT_NOBITS, which has none).
 *
 * @see kernel/module/main.c elf_validity_check() (section bounds and the name table)
 */
export function parseSections(r: ElfReader, header: ElfHeader): ElfSection[] {
  const raw: RawSection[] = [];
  for (let i = 0; i < header.shnum; i++) {
    const at = r.require(header.shoff + BigInt(i * ELF64_SIZE.shdr), ELF64_SIZE.shdr, `section header ${i}`);
    raw.push({
      nameIndex: r.u32(at),
      type: r.u32(at + 4),
      flags: r.u64(at + 8),
      addr: r.u64(at + 16),
      offset: r.u64(at + 24),
      size: r.u64(at + 32),
      link: r.u32(at + 40),
      info: r.u32(at + 44),
      addralign: r.u64(at + 48),
      entsize: r.u64(at + 56),
    });
  }
  if (header.shnum === 0) return [];
  const table = raw[header.shstrndx];
  if (header.shstrndx !== 0) {
    if (table.type !== SHT.STRTAB) {
      throw r.error(
        'BAD_SECTION',
        `section-name table (section ${header.shstrndx}) has type ${table.type}, not SHT_STRTAB`,
      );
    }
    r.require(table.offset, table.size, `section ${header.shstrndx} (section-name table) data`);
  }
  return raw.map((s, i) => {
    const name =
      header.shstrndx === 0
        ? ''
        : r.string(Number(table.offset), Number(table.size), s.nameIndex, 'BAD_SECTION', `section ${i} header`);
    const hasData = s.type !== SHT.NOBITS && s.type !== SHT.NULL;
    if (hasData) r.require(s.offset, s.size, `section ${i} (${name}) data`);
    for (const [field, value] of [
      ['sh_size', s.size],
      ['sh_flags', s.flags],
      ['sh_addralign', s.addralign],
      ['sh_entsize', s.entsize],
    ] as const) {
      if (value > MAX_SAFE) throw r.error('BAD_SECTION', `section ${i} (${name}): ${field} ${hex(value)} is too large`);
    }
    return {
      index: i,
      name,
      type: s.type,
      flags: Number(s.flags),
      addr: s.addr,
      // A NOBITS section's offset is never read, so it may be anything.
      offset: hasData || s.offset <= MAX_SAFE ? Number(s.offset) : 0,
      size: Number(s.size),
      link: s.link,
      info: s.info,
      addralign: Number(s.addralign),
      entsize: Number(s.entsize),
    };
  });
}
