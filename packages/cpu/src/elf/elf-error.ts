/** Every way an ELF file can be refused, a closed set. */
export const ElfErrorCode = {
  /** A structure (header, table, string, segment data) runs past the end of the file. */
  TRUNCATED: 'TRUNCATED',
  /** No `\x7fELF` magic. */
  NOT_ELF: 'NOT_ELF',
  /** ELFCLASS32. */
  NOT_64BIT: 'NOT_64BIT',
  /** ELFDATA2MSB. */
  BIG_ENDIAN: 'BIG_ENDIAN',
  /** `e_machine` is not EM_X86_64. */
  NOT_X86_64: 'NOT_X86_64',
  /** Neither ET_EXEC nor ET_REL (or the wrong one for the operation). */
  BAD_TYPE: 'BAD_TYPE',
  /** An inconsistent ELF header field (entry sizes, version, section-name table index). */
  BAD_HEADER: 'BAD_HEADER',
  /** A program header that cannot be loaded as described (sizes, alignment, address range, overlap). */
  BAD_SEGMENT: 'BAD_SEGMENT',
  /** A section header that is inconsistent (links, entry sizes, names). */
  BAD_SECTION: 'BAD_SECTION',
  /** A symbol with an unknown type/binding, a bad section index or name. */
  BAD_SYMBOL: 'BAD_SYMBOL',
  /** A relocation naming a missing symbol or patching outside its target section. */
  BAD_RELOCATION: 'BAD_RELOCATION',
  /** A segment would land on pages the address space already maps. */
  LOAD_CONFLICT: 'LOAD_CONFLICT',
} as const;

/** One of the {@link ElfErrorCode} names. */
export type ElfErrorCode = keyof typeof ElfErrorCode;

/**
 * An ELF file refused by {@link parseElf} or {@link loadElf}. The message names the file, what is wrong
 * and where, e.g. `x.elf: truncated: program header 2 ends at 0x1f8 beyond file size 0x100`.
 *
 * @see fs/binfmt_elf.c load_elf_binary(), kernel/module/main.c elf_validity_check() (the checks Linux makes)
 */
export class ElfError extends Error {
  constructor(
    readonly code: ElfErrorCode,
    /** What is wrong, without the file name. */
    readonly detail: string,
    /** The file name given to the parser, if any. */
    readonly file?: string,
  ) {
    super(file ? `${file}: ${detail}` : detail);
    this.name = 'ElfError';
  }
}

/** `0x`-prefixed lower-case hex, the notation every ELF error message uses. */
export function hex(value: number | bigint): string {
  return `0x${value.toString(16)}`;
}
