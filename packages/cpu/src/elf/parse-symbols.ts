import { ELF64_SIZE, SHN, SHT } from './elf-constants.js';
import { hex } from './elf-error.js';
import type { ElfSection, ElfSymbol, ElfSymbolBind, ElfSymbolType } from './elf-file.js';
import type { ElfReader } from './elf-reader.js';

const TYPES: Readonly<Record<number, ElfSymbolType>> = {
  0: 'notype',
  1: 'object',
  2: 'func',
  3: 'section',
  4: 'file',
  5: 'object', // STT_COMMON
  10: 'func', // STT_GNU_IFUNC
};

const BINDS: Readonly<Record<number, ElfSymbolBind>> = { 0: 'local', 1: 'global', 2: 'weak', 10: 'global' };

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Reads `.symtab` (the SHT_SYMTAB section) with names from its linked string table. Returns [] when the
 * file has no symbol table (stripped). Every symbol is validated: known type and binding, `st_shndx` a
 * real section or UNDEF/ABS/COMMON, name inside the string table.
 *
 * @see kernel/module/main.c simplify_symbols() (the shndx cases), scripts/kallsyms.c read_symbol()
 */
export function parseSymbols(r: ElfReader, sections: readonly ElfSection[]): ElfSymbol[] {
  const symtab = sections.find((s) => s.type === SHT.SYMTAB);
  if (!symtab) return [];
  const where = `section ${symtab.index} (${symtab.name})`;
  if (symtab.entsize !== ELF64_SIZE.sym) {
    throw r.error('BAD_SECTION', `${where}: sh_entsize ${symtab.entsize} is not ${ELF64_SIZE.sym}`);
  }
  if (symtab.size % ELF64_SIZE.sym !== 0) {
    throw r.error('BAD_SECTION', `${where}: size ${hex(symtab.size)} is not a multiple of ${ELF64_SIZE.sym}`);
  }
  const strtab = sections[symtab.link];
  if (!strtab || strtab.type !== SHT.STRTAB) {
    throw r.error('BAD_SECTION', `${where}: sh_link ${symtab.link} is not a string table`);
  }
  const count = symtab.size / ELF64_SIZE.sym;
  const symbols: ElfSymbol[] = [];
  for (let i = 0; i < count; i++) {
    const at = symtab.offset + i * ELF64_SIZE.sym;
    const info = r.u8(at + 4);
    const shndx = r.u16(at + 6);
    const size = r.u64(at + 16);
    const name = r.string(strtab.offset, strtab.size, r.u32(at), 'BAD_SYMBOL', `symbol ${i}`);
    const bad = (why: string) => r.error('BAD_SYMBOL', `symbol ${i}${name ? ` (${name})` : ''}: ${why}`);
    const type = TYPES[info & 0xf];
    if (type === undefined) throw bad(`unsupported type STT ${info & 0xf}`);
    const bind = BINDS[info >> 4];
    if (bind === undefined) throw bad(`unsupported binding STB ${info >> 4}`);
    const special = shndx === SHN.UNDEF || shndx === SHN.ABS || shndx === SHN.COMMON;
    if (!special && (shndx >= sections.length || shndx >= SHN.LORESERVE)) {
      throw bad(`section index ${hex(shndx)} beyond section count ${sections.length}`);
    }
    if (size > MAX_SAFE) throw bad(`size ${hex(size)} is too large`);
    symbols.push({
      index: i,
      name,
      value: r.u64(at + 8),
      size: Number(size),
      type,
      bind,
      shndx,
      sectionName: special ? undefined : sections[shndx].name,
    });
  }
  return symbols;
}
