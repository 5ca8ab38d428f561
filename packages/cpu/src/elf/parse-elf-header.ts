import { ELF64_SIZE, EM_X86_64, ET } from './elf-constants.js';
import { hex } from './elf-error.js';
import type { ElfReader } from './elf-reader.js';

/** The ELF64 header fields the rest of the parser needs. */
export interface ElfHeader {
  readonly type: 'exec' | 'rel';
  readonly entry: bigint;
  readonly phoff: bigint;
  readonly phnum: number;
  readonly shoff: bigint;
  readonly shnum: number;
  readonly shstrndx: number;
}

const MAGIC = [0x7f, 0x45, 0x4c, 0x46];

const MACHINES: Readonly<Record<number, string>> = {
  3: 'EM_386',
  40: 'EM_ARM',
  183: 'EM_AARCH64',
  243: 'EM_RISCV',
};

const TYPES: Readonly<Record<number, string>> = {
  0: 'ET_NONE',
  3: 'ET_DYN (a shared object or PIE; link with -static -no-pie)',
  4: 'ET_CORE (a core dump)',
};

/**
 * Reads and validates `e_ident` and the ELF64 header: magic, class, byte order, version, machine, type
 * and the table entry sizes.
 *
 * @see fs/binfmt_elf.c load_elf_binary() (elf_check_arch, e_type and e_phentsize checks)
 */
export function parseElfHeader(r: ElfReader): ElfHeader {
  const prefix = Math.min(r.size, MAGIC.length);
  for (let i = 0; i < prefix; i++) {
    if (r.u8(i) !== MAGIC[i]) throw r.error('NOT_ELF', 'not an ELF file (no \\x7fELF magic)');
  }
  if (r.size === 0) throw r.error('NOT_ELF', 'not an ELF file (empty)');
  r.require(0, 16, 'ELF identification');
  const elfClass = r.u8(4);
  if (elfClass === 1) throw r.error('NOT_64BIT', 'a 32-bit ELF (ELFCLASS32); int3 runs ELFCLASS64 x86-64 code only');
  if (elfClass !== 2) throw r.error('BAD_HEADER', `bad ELF class ${elfClass} in e_ident[EI_CLASS]`);
  const data = r.u8(5);
  if (data === 2) throw r.error('BIG_ENDIAN', 'a big-endian ELF (ELFDATA2MSB); x86-64 is little-endian');
  if (data !== 1) throw r.error('BAD_HEADER', `bad byte order ${data} in e_ident[EI_DATA]`);
  if (r.u8(6) !== 1) throw r.error('BAD_HEADER', `bad ELF version ${r.u8(6)} in e_ident[EI_VERSION]`);
  r.require(0, ELF64_SIZE.ehdr, 'ELF header');
  const machine = r.u16(18);
  if (machine !== EM_X86_64) {
    const known = MACHINES[machine] ? ` (${MACHINES[machine]})` : '';
    throw r.error('NOT_X86_64', `machine ${hex(machine)}${known} is not EM_X86_64`);
  }
  const type = r.u16(16);
  if (type !== ET.EXEC && type !== ET.REL) {
    throw r.error('BAD_TYPE', `type ${TYPES[type] ?? hex(type)} is neither ET_EXEC nor ET_REL`);
  }
  const phnum = r.u16(56);
  const phentsize = r.u16(54);
  if (phnum > 0 && phentsize !== ELF64_SIZE.phdr) {
    throw r.error('BAD_HEADER', `e_phentsize ${phentsize} is not ${ELF64_SIZE.phdr}`);
  }
  const shoff = r.u64(40);
  const shnum = r.u16(60);
  const shentsize = r.u16(58);
  if (shnum === 0 && shoff !== 0n) {
    throw r.error('BAD_HEADER', 'extended section numbering (e_shnum 0 with e_shoff set) is not supported');
  }
  if (shnum > 0 && shentsize !== ELF64_SIZE.shdr) {
    throw r.error('BAD_HEADER', `e_shentsize ${shentsize} is not ${ELF64_SIZE.shdr}`);
  }
  const shstrndx = r.u16(62);
  if (shnum > 0 && shstrndx >= shnum) {
    throw r.error('BAD_HEADER', `e_shstrndx ${shstrndx} beyond section count ${shnum}`);
  }
  return {
    type: type === ET.EXEC ? 'exec' : 'rel',
    entry: r.u64(24),
    phoff: r.u64(32),
    phnum,
    shoff,
    shnum,
    shstrndx,
  };
}
