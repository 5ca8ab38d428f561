/**
 * The ELF numbers the parser and loader use. Names are the gABI / psABI ones.
 *
 * @see include/uapi/linux/elf.h, arch/x86/include/asm/elf.h
 */

/** Special `st_shndx` values. */
export const SHN = { UNDEF: 0, LORESERVE: 0xff00, ABS: 0xfff1, COMMON: 0xfff2, XINDEX: 0xffff } as const;

/** `sh_type` values the parser gives meaning to. */
export const SHT = { NULL: 0, PROGBITS: 1, SYMTAB: 2, STRTAB: 3, RELA: 4, NOBITS: 8, REL: 9 } as const;

/** `sh_flags` bits. */
export const SHF = { WRITE: 0x1, ALLOC: 0x2, EXECINSTR: 0x4 } as const;

/** `e_type`. */
export const ET = { REL: 1, EXEC: 2, DYN: 3, CORE: 4 } as const;

/** EM_X86_64. */
export const EM_X86_64 = 62;

/** `p_type` PT_LOAD. */
export const PT_LOAD = 1;

/** `p_flags` bits. */
export const PF = { X: 1, W: 2, R: 4 } as const;

/** Sizes of the fixed ELF64 structures. */
export const ELF64_SIZE = { ehdr: 64, phdr: 56, shdr: 64, sym: 24, rela: 24 } as const;

/**
 * x86-64 relocation types: name and the width in bytes of the patched field.
 *
 * @see x86-64 psABI table 4.9, arch/x86/kernel/module.c __write_relocate_add()
 */
export const R_X86_64: Readonly<Record<number, { readonly name: string; readonly width: number }>> = {
  0: { name: 'R_X86_64_NONE', width: 0 },
  1: { name: 'R_X86_64_64', width: 8 },
  2: { name: 'R_X86_64_PC32', width: 4 },
  3: { name: 'R_X86_64_GOT32', width: 4 },
  4: { name: 'R_X86_64_PLT32', width: 4 },
  9: { name: 'R_X86_64_GOTPCREL', width: 4 },
  10: { name: 'R_X86_64_32', width: 4 },
  11: { name: 'R_X86_64_32S', width: 4 },
  12: { name: 'R_X86_64_16', width: 2 },
  13: { name: 'R_X86_64_PC16', width: 2 },
  14: { name: 'R_X86_64_8', width: 1 },
  15: { name: 'R_X86_64_PC8', width: 1 },
  24: { name: 'R_X86_64_PC64', width: 8 },
  41: { name: 'R_X86_64_GOTPCRELX', width: 4 },
  42: { name: 'R_X86_64_REX_GOTPCRELX', width: 4 },
};

/** The lowest address of the upper canonical half (kernel space). */
export const KERNEL_HALF_START = 0xffff_8000_0000_0000n;

/** One past the highest address of the lower canonical half (user space). */
export const USER_HALF_END = 0x0000_8000_0000_0000n;
