import { ELF64_SIZE, R_X86_64, SHT } from './elf-constants.js';
import { hex } from './elf-error.js';
import type { ElfRelocation, ElfRelocationSection, ElfSection, ElfSymbol } from './elf-file.js';
import type { ElfReader } from './elf-reader.js';

/**
 * Reads every SHT_RELA section of an ET_REL file. Each must link the symbol table and name a real
 * target section; each entry must name an existing symbol and patch bytes inside its target.
 * SHT_REL (no addend) is refused: x86-64 objects use RELA only.
 *
 * @see kernel/module/main.c apply_relocations(), arch/x86/kernel/module.c __write_relocate_add()
 */
export function parseRelocations(
  r: ElfReader,
  sections: readonly ElfSection[],
  symbols: readonly ElfSymbol[],
): ElfRelocationSection[] {
  const result: ElfRelocationSection[] = [];
  for (const section of sections) {
    const where = `section ${section.index} (${section.name})`;
    if (section.type === SHT.REL) throw r.error('BAD_SECTION', `${where}: SHT_REL is not used on x86-64 (RELA only)`);
    if (section.type !== SHT.RELA) continue;
    if (section.entsize !== ELF64_SIZE.rela || section.size % ELF64_SIZE.rela !== 0) {
      throw r.error(
        'BAD_SECTION',
        `${where}: sh_entsize ${section.entsize} / size ${hex(section.size)} do not describe ${ELF64_SIZE.rela}-byte entries`,
      );
    }
    const symtab = sections[section.link];
    if (!symtab || symtab.type !== SHT.SYMTAB) {
      throw r.error('BAD_SECTION', `${where}: sh_link ${section.link} is not the symbol table`);
    }
    const target = sections[section.info];
    if (section.info === 0 || !target) {
      throw r.error('BAD_SECTION', `${where}: sh_info ${section.info} names no target section`);
    }
    const entries: ElfRelocation[] = [];
    for (let i = 0; i < section.size / ELF64_SIZE.rela; i++) {
      const at = section.offset + i * ELF64_SIZE.rela;
      const offset = r.u64(at);
      const info = r.u64(at + 8);
      const symbol = Number(info >> 32n);
      const type = Number(info & 0xffff_ffffn);
      const known = R_X86_64[type];
      const typeName = known?.name ?? `R_X86_64_${type}`;
      const bad = (why: string) => r.error('BAD_RELOCATION', `${where} entry ${i} (${typeName}): ${why}`);
      if (symbol >= symbols.length) throw bad(`symbol index ${symbol} beyond symbol count ${symbols.length}`);
      const end = offset + BigInt(known?.width ?? 0);
      if (end > BigInt(target.size)) {
        throw bad(`patches ${hex(offset)}..${hex(end)} beyond ${target.name} size ${hex(target.size)}`);
      }
      entries.push({ offset: Number(offset), type, typeName, symbol, addend: r.i64(at + 16) });
    }
    result.push({
      index: section.index,
      name: section.name,
      targetSection: target.index,
      targetName: target.name,
      entries,
    });
  }
  return result;
}
