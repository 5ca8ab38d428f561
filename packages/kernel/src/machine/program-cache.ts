import { AddressSpace, type ElfFile, loadElf, PageFlags, parseElf } from '@int3/cpu';
import { sameBytes } from '../snapshot/page-interner.js';

/** A program as loaded once: its parsed ELF and a pristine address space holding its pages. */
interface LoadedProgram {
  readonly bytes: Uint8Array;
  readonly elf: ElfFile;
  readonly template: AddressSpace;
}

/**
 * The workload programs a machine has started, each parsed and loaded once into a template space
 * that never runs. A new task maps the template's read-only pages themselves — its text shares the
 * bytes and the decoded code of every other task of that program, as page-cache pages are shared in
 * Linux — and gets its own copies of the writable ones.
 * @see fs/binfmt_elf.c load_elf_binary() (file-backed, shared text mappings)
 */
export class ProgramCache {
  private readonly programs = new Map<string, LoadedProgram>();

  constructor(private readonly kernel: AddressSpace) {}

  /**
   * Maps program `name` (ELF `bytes`) into `mm`, a fresh user space, and returns its ELF. Parse and
   * load errors (`ElfError`) are those of `parseElf`/`loadElf`.
   */
  load(name: string, bytes: Uint8Array, mm: AddressSpace): ElfFile {
    let program = this.programs.get(name);
    if (program === undefined || !sameBytes(program.bytes, bytes)) {
      const elf = parseElf(bytes, name);
      const template = new AddressSpace(this.kernel);
      loadElf(elf, template, { user: true });
      program = { bytes, elf, template };
      this.programs.set(name, program);
    }
    for (const [key, page] of program.template.pageMap) {
      const address = BigInt(key) << 12n;
      if (page.flags & PageFlags.Writable) {
        mm.map(address, page.data.length, page.flags);
        mm.write(address, page.data);
      } else {
        mm.share(program.template, address, page.data.length);
      }
    }
    return program.elf;
  }
}
