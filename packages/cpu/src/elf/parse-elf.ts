import type { ElfFile } from './elf-file.js';
import { ElfReader } from './elf-reader.js';
import { parseElfHeader } from './parse-elf-header.js';
import { parseRelocations } from './parse-relocations.js';
import { parseSections } from './parse-sections.js';
import { parseSegments } from './parse-segments.js';
import { parseSymbols } from './parse-symbols.js';

/**
 * Parses an ELF64 x86-64 ET_EXEC image or ET_REL object, checking every offset and size against the
 * file. Either the whole file is described or an {@link ElfError} is thrown: never a partial result.
 *
 * @param bytes the file's contents (kept by reference in the result)
 * @param name a name for error messages, e.g. the path
 * @throws ElfError with a code from {@link ElfErrorCode}
 * @see fs/binfmt_elf.c load_elf_binary(), kernel/module/main.c elf_validity_check()
 * @example
 * const elf = parseElf(readFileSync('vmlinux'), 'vmlinux');
 * elf.symbols.find((s) => s.name === 'do_sys_open')?.value; // 0xffffffff81001230n
 */
export function parseElf(bytes: Uint8Array, name?: string): ElfFile {
  const r = new ElfReader(bytes, name);
  // Step 1: the header decides everything else (class, byte order, machine, type, table sizes).
  const header = parseElfHeader(r);
  // Step 2: program headers, each with its file data bounds-checked.
  const segments = parseSegments(r, header);
  // Step 3: section headers and their names.
  const sections = parseSections(r, header);
  // Step 4: the symbol table, then (ET_REL only) relocations that refer to it.
  const symbols = parseSymbols(r, sections);
  const relocations = header.type === 'rel' ? parseRelocations(r, sections, symbols) : [];
  return { name: name ?? '', bytes, type: header.type, entry: header.entry, segments, sections, symbols, relocations };
}
