/**
 * The parsed form of an ELF64 x86-64 file: plain readonly data, produced whole by {@link parseElf} or
 * not at all. Addresses and addends are `bigint`; file offsets and sizes are `number` (checked to fit).
 *
 * @see System V ABI, "Object Files" (gABI) and the x86-64 psABI chapter 4
 */
export interface ElfFile {
  /** The name given to the parser (used in error messages), e.g. the file path. */
  readonly name: string;
  /** The whole file; segments and sections index into it. */
  readonly bytes: Uint8Array;
  /** ET_EXEC (a linked, static image) or ET_REL (a relocatable object such as a kernel module). */
  readonly type: 'exec' | 'rel';
  /** `e_entry` (0 for most ET_REL). */
  readonly entry: bigint;
  /** Every PT_LOAD program header, in file order. */
  readonly segments: readonly ElfSegment[];
  /** Every section header, index = section index (index 0 is the null section). */
  readonly sections: readonly ElfSection[];
  /** `.symtab`, index = symbol index (index 0 is the null symbol); empty when stripped. */
  readonly symbols: readonly ElfSymbol[];
  /** ET_REL only: one entry per SHT_RELA section; empty for ET_EXEC. */
  readonly relocations: readonly ElfRelocationSection[];
}

/** A PT_LOAD program header. */
export interface ElfSegment {
  /** Program header index. */
  readonly index: number;
  readonly vaddr: bigint;
  /** File offset of the bytes to copy. */
  readonly offset: number;
  /** Bytes copied from the file (`p_filesz`). */
  readonly fileSize: number;
  /** Bytes in memory (`p_memsz`); the tail past `fileSize` is zero (bss). */
  readonly memSize: number;
  /** `p_align` (0 or 1: none). */
  readonly align: number;
  /** PF_R. */
  readonly read: boolean;
  /** PF_W. */
  readonly write: boolean;
  /** PF_X. */
  readonly execute: boolean;
}

/** A section header with its name resolved. */
export interface ElfSection {
  readonly index: number;
  /** From `.shstrtab`; '' for the null section or when the file has no section-name table. */
  readonly name: string;
  /** `sh_type` (SHT_PROGBITS = 1, SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_RELA = 4, SHT_NOBITS = 8, ...). */
  readonly type: number;
  /** `sh_flags` (SHF_WRITE = 1, SHF_ALLOC = 2, SHF_EXECINSTR = 4). */
  readonly flags: number;
  readonly addr: bigint;
  readonly offset: number;
  readonly size: number;
  readonly link: number;
  readonly info: number;
  readonly addralign: number;
  readonly entsize: number;
}

/** A symbol's kind (`STT_*`): STT_COMMON reads as 'object', STT_GNU_IFUNC as 'func'. */
export type ElfSymbolType = 'func' | 'object' | 'notype' | 'section' | 'file';

/** A symbol's binding (`STB_*`): STB_GNU_UNIQUE reads as 'global'. */
export type ElfSymbolBind = 'local' | 'global' | 'weak';

/** A `.symtab` entry. */
export interface ElfSymbol {
  readonly index: number;
  /** From the linked string table ('' for unnamed, e.g. section symbols). */
  readonly name: string;
  /** The address (ET_EXEC) or the offset in its section (ET_REL); for SHN_COMMON the alignment. */
  readonly value: bigint;
  readonly size: number;
  readonly type: ElfSymbolType;
  readonly bind: ElfSymbolBind;
  /** Raw `st_shndx`: a section index or one of {@link SHN} UNDEF / ABS / COMMON. */
  readonly shndx: number;
  /** The defining section's name; undefined for UNDEF, ABS and COMMON. */
  readonly sectionName: string | undefined;
}

/** A `.rela.*` section: the relocations to apply to one target section. */
export interface ElfRelocationSection {
  /** Index of the SHT_RELA section itself. */
  readonly index: number;
  /** E.g. `.rela.text`. */
  readonly name: string;
  /** Index of the section the relocations patch (`sh_info`). */
  readonly targetSection: number;
  /** E.g. `.text`. */
  readonly targetName: string;
  readonly entries: readonly ElfRelocation[];
}

/** An `Elf64_Rela`. */
export interface ElfRelocation {
  /** Offset inside the target section. */
  readonly offset: number;
  /** `ELF64_R_TYPE` (R_X86_64_64 = 1, PC32 = 2, PLT32 = 4, 32 = 10, 32S = 11, PC64 = 24, ...). */
  readonly type: number;
  /** `R_X86_64_PC32` etc.; `R_X86_64_<n>` for a type without a name here. */
  readonly typeName: string;
  /** `ELF64_R_SYM`: index into {@link ElfFile.symbols}. */
  readonly symbol: number;
  readonly addend: bigint;
}
