import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ElfError, type ElfErrorCode } from './elf-error.js';
import { parseElf } from './parse-elf.js';

// A tiny ELF64 writer for hand-built test files: just enough structure to exercise every check.

interface TinySegment {
  vaddr: bigint;
  data: number[];
  memSize?: number;
  flags: number; // PF_X 1, PF_W 2, PF_R 4
  align?: number;
}

interface TinySection {
  name: string;
  type: number;
  data: Uint8Array;
  flags?: number;
  addr?: bigint;
  link?: number;
  info?: number;
  entsize?: number;
}

interface TinySpec {
  type?: number;
  entry?: bigint;
  segments?: TinySegment[];
  /** Sections after the null one; `.shstrtab` is appended as the last section. */
  sections?: TinySection[];
}

interface Tiny {
  bytes: Uint8Array;
  view: DataView;
  phoff: number;
  shoff: number;
  /** File offset of each section's data, by name. */
  dataAt: Map<string, number>;
}

function build(spec: TinySpec): Tiny {
  const segments = spec.segments ?? [];
  const names = [...(spec.sections ?? []).map((s) => s.name), '.shstrtab'];
  const shstr = strings(names);
  const sections = [...(spec.sections ?? []), { name: '.shstrtab', type: 3, data: shstr.data }];
  const out: number[] = new Array(64).fill(0);
  const phoff = out.length;
  out.push(...new Array(56 * segments.length).fill(0));
  const segAt = segments.map((s) => {
    const align = s.align ?? 0;
    if (align > 1) while (BigInt(out.length) % BigInt(align) !== s.vaddr % BigInt(align)) out.push(0);
    const at = out.length;
    out.push(...s.data);
    return at;
  });
  const dataAt = new Map<string, number>();
  const secAt = sections.map((s) => {
    while (out.length % 8) out.push(0);
    dataAt.set(s.name, out.length);
    const at = out.length;
    if (s.type !== 8) out.push(...s.data);
    return at;
  });
  while (out.length % 8) out.push(0);
  const shoff = out.length;
  out.push(...new Array(64 * (sections.length + 1)).fill(0));
  const bytes = new Uint8Array(out);
  const v = new DataView(bytes.buffer);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  v.setUint16(16, spec.type ?? 2, true);
  v.setUint16(18, 62, true);
  v.setUint32(20, 1, true);
  v.setBigUint64(24, spec.entry ?? segments[0]?.vaddr ?? 0n, true);
  v.setBigUint64(32, segments.length ? BigInt(phoff) : 0n, true);
  v.setBigUint64(40, BigInt(shoff), true);
  v.setUint16(52, 64, true);
  v.setUint16(54, 56, true);
  v.setUint16(56, segments.length, true);
  v.setUint16(58, 64, true);
  v.setUint16(60, sections.length + 1, true);
  v.setUint16(62, sections.length, true);
  segments.forEach((s, i) => {
    const at = phoff + 56 * i;
    v.setUint32(at, 1, true);
    v.setUint32(at + 4, s.flags, true);
    v.setBigUint64(at + 8, BigInt(segAt[i]), true);
    v.setBigUint64(at + 16, s.vaddr, true);
    v.setBigUint64(at + 24, s.vaddr, true);
    v.setBigUint64(at + 32, BigInt(s.data.length), true);
    v.setBigUint64(at + 40, BigInt(s.memSize ?? s.data.length), true);
    v.setBigUint64(at + 48, BigInt(s.align ?? 0), true);
  });
  sections.forEach((s, i) => {
    const at = shoff + 64 * (i + 1);
    v.setUint32(at, shstr.index[i], true);
    v.setUint32(at + 4, s.type, true);
    v.setBigUint64(at + 8, BigInt('flags' in s ? (s.flags ?? 0) : 0), true);
    v.setBigUint64(at + 16, 'addr' in s ? (s.addr ?? 0n) : 0n, true);
    v.setBigUint64(at + 24, BigInt(secAt[i]), true);
    v.setBigUint64(at + 32, BigInt(s.data.length), true);
    v.setUint32(at + 40, 'link' in s ? (s.link ?? 0) : 0, true);
    v.setUint32(at + 44, 'info' in s ? (s.info ?? 0) : 0, true);
    v.setBigUint64(at + 48, 1n, true);
    v.setBigUint64(at + 56, BigInt('entsize' in s ? (s.entsize ?? 0) : 0), true);
  });
  return { bytes, view: v, phoff, shoff, dataAt };
}

function strings(list: string[]): { data: Uint8Array; index: number[] } {
  const out = [0];
  const index = list.map((s) => {
    const at = out.length;
    out.push(...new TextEncoder().encode(s), 0);
    return at;
  });
  return { data: new Uint8Array(out), index };
}

interface TinySymbol {
  name: string;
  value: bigint;
  size?: number;
  info: number; // (bind << 4) | type
  shndx: number;
}

function symtab(symbols: TinySymbol[]): { symtab: Uint8Array; strtab: Uint8Array } {
  const str = strings(symbols.map((s) => s.name));
  const data = new Uint8Array(24 * (symbols.length + 1));
  const v = new DataView(data.buffer);
  symbols.forEach((s, i) => {
    const at = 24 * (i + 1);
    v.setUint32(at, s.name ? str.index[i] : 0, true);
    v.setUint8(at + 4, s.info);
    v.setUint16(at + 6, s.shndx, true);
    v.setBigUint64(at + 8, s.value, true);
    v.setBigUint64(at + 16, BigInt(s.size ?? 0), true);
  });
  return { symtab: data, strtab: str.data };
}

function rela(entries: { offset: bigint; symbol: number; type: number; addend: bigint }[]): Uint8Array {
  const data = new Uint8Array(24 * entries.length);
  const v = new DataView(data.buffer);
  entries.forEach((e, i) => {
    v.setBigUint64(24 * i, e.offset, true);
    v.setBigUint64(24 * i + 8, (BigInt(e.symbol) << 32n) | BigInt(e.type), true);
    v.setBigInt64(24 * i + 16, e.addend, true);
  });
  return data;
}

const TEXT = 0xffffffff81000000n;
const CODE = [0x48, 0x8d, 0x04, 0x37, 0xc3]; // lea rax,[rdi+rsi]; ret

/** An ET_EXEC with text + data/bss segments and a symbol table: sections 1 .text, 2 .bss, 3 .symtab, 4 .strtab. */
function exec(): Tiny {
  const { symtab: sym, strtab } = symtab([
    { name: 'add', value: TEXT, size: 5, info: 0x12, shndx: 1 },
    { name: 'counter', value: TEXT + 0x1000n, size: 8, info: 0x11, shndx: 2 },
    { name: 'local_label', value: TEXT + 4n, info: 0x00, shndx: 1 },
    { name: 'x.c', value: 0n, info: 0x04, shndx: 0xfff1 },
  ]);
  return build({
    segments: [
      { vaddr: TEXT, data: CODE, flags: 5, align: 0x1000 },
      { vaddr: TEXT + 0x1000n, data: [], memSize: 0x20, flags: 6, align: 0x1000 },
    ],
    sections: [
      { name: '.text', type: 1, data: new Uint8Array(CODE), flags: 6, addr: TEXT },
      { name: '.bss', type: 8, data: new Uint8Array(0x20), flags: 3, addr: TEXT + 0x1000n },
      { name: '.symtab', type: 2, data: sym, link: 4, info: 1, entsize: 24 },
      { name: '.strtab', type: 3, data: strtab },
    ],
  });
}

/** An ET_REL: 1 .text, 2 .rela.text, 3 .symtab, 4 .strtab. */
function rel(entries = [{ offset: 1n, symbol: 2, type: 4, addend: -4n }]): Tiny {
  const { symtab: sym, strtab } = symtab([
    { name: '', value: 0n, info: 0x03, shndx: 1 },
    { name: 'printk', value: 0n, info: 0x10, shndx: 0 },
    { name: 'init_module', value: 0n, size: 16, info: 0x12, shndx: 1 },
  ]);
  return build({
    type: 1,
    sections: [
      { name: '.text', type: 1, data: new Uint8Array([0xe8, 0, 0, 0, 0, 0xc3, ...new Array(10).fill(0xcc)]), flags: 6 },
      { name: '.rela.text', type: 4, data: rela(entries), link: 3, info: 1, entsize: 24 },
      { name: '.symtab', type: 2, data: sym, link: 4, info: 2, entsize: 24 },
      { name: '.strtab', type: 3, data: strtab },
    ],
  });
}

function refusal(bytes: Uint8Array): ElfError {
  try {
    parseElf(bytes, 't.elf');
  } catch (error) {
    if (error instanceof ElfError) return error;
    throw error;
  }
  throw new Error('parseElf accepted the file');
}

function expectRefused(bytes: Uint8Array, code: ElfErrorCode, message: string | RegExp): void {
  const error = refusal(bytes);
  expect(error.code).toBe(code);
  expect(error.message).toMatch(message);
}

const SH = (t: Tiny, index: number, field: number) => t.shoff + 64 * index + field;

describe(parseElf, () => {
  it('should describe an ET_EXEC: entry, PT_LOAD permissions, sections and symbols', () => {
    const elf = parseElf(exec().bytes, 'x.elf');
    expect(elf).toMatchObject({ name: 'x.elf', type: 'exec', entry: TEXT, relocations: [] });
    expect(elf.segments).toEqual([
      expect.objectContaining({
        index: 0,
        vaddr: TEXT,
        fileSize: 5,
        memSize: 5,
        read: true,
        write: false,
        execute: true,
      }),
      expect.objectContaining({ index: 1, fileSize: 0, memSize: 0x20, read: true, write: true, execute: false }),
    ]);
    expect(elf.sections.map((s) => s.name)).toEqual(['', '.text', '.bss', '.symtab', '.strtab', '.shstrtab']);
    expect(elf.symbols.slice(1)).toEqual([
      { index: 1, name: 'add', value: TEXT, size: 5, type: 'func', bind: 'global', shndx: 1, sectionName: '.text' },
      expect.objectContaining({ name: 'counter', type: 'object', sectionName: '.bss' }),
      expect.objectContaining({ name: 'local_label', type: 'notype', bind: 'local', size: 0 }),
      expect.objectContaining({ name: 'x.c', type: 'file', shndx: 0xfff1, sectionName: undefined }),
    ]);
  });

  it('should describe an ET_REL with its relocations', () => {
    const elf = parseElf(rel().bytes);
    expect(elf.type).toBe('rel');
    expect(elf.symbols[2]).toMatchObject({ name: 'printk', bind: 'global', shndx: 0, sectionName: undefined });
    expect(elf.relocations).toEqual([
      {
        index: 2,
        name: '.rela.text',
        targetSection: 1,
        targetName: '.text',
        entries: [{ offset: 1, type: 4, typeName: 'R_X86_64_PLT32', symbol: 2, addend: -4n }],
      },
    ]);
  });

  it('should name relocation types and keep unknown ones as numbers', () => {
    const types = [1, 2, 10, 11, 24, 99].map((type) => ({ offset: 0n, symbol: 1, type, addend: 0n }));
    const [section] = parseElf(rel(types).bytes).relocations;
    expect(section.entries.map((e) => e.typeName)).toEqual([
      'R_X86_64_64',
      'R_X86_64_PC32',
      'R_X86_64_32',
      'R_X86_64_32S',
      'R_X86_64_PC64',
      'R_X86_64_99',
    ]);
  });

  it('should return no symbols for a stripped file', () => {
    const t = build({ segments: [{ vaddr: TEXT, data: CODE, flags: 5 }] });
    expect(parseElf(t.bytes).symbols).toEqual([]);
  });

  describe('refusals', () => {
    it('should refuse a file without the ELF magic with NOT_ELF', () => {
      expectRefused(new Uint8Array(), 'NOT_ELF', 'empty');
      expectRefused(new TextEncoder().encode('#!/bin/sh\necho hi\n'), 'NOT_ELF', 't.elf: not an ELF file');
    });

    it('should refuse truncated identification and header with TRUNCATED', () => {
      expectRefused(
        new Uint8Array([0x7f, 0x45, 0x4c]),
        'TRUNCATED',
        'ELF identification ends at 0x10 beyond file size 0x3',
      );
      expectRefused(
        exec().bytes.subarray(0, 40),
        'TRUNCATED',
        'truncated: ELF header ends at 0x40 beyond file size 0x28',
      );
    });

    it('should refuse ELFCLASS32 with NOT_64BIT', () => {
      const t = exec();
      t.bytes[4] = 1;
      expectRefused(t.bytes, 'NOT_64BIT', 'ELFCLASS32');
    });

    it('should refuse ELFDATA2MSB with BIG_ENDIAN', () => {
      const t = exec();
      t.bytes[5] = 2;
      expectRefused(t.bytes, 'BIG_ENDIAN', 'big-endian');
    });

    it('should refuse another machine with NOT_X86_64, naming it', () => {
      const t = exec();
      t.view.setUint16(18, 183, true);
      expectRefused(t.bytes, 'NOT_X86_64', 'machine 0xb7 (EM_AARCH64) is not EM_X86_64');
    });

    it('should refuse ET_DYN and ET_CORE with BAD_TYPE', () => {
      const t = exec();
      t.view.setUint16(16, 3, true);
      expectRefused(t.bytes, 'BAD_TYPE', 'ET_DYN');
      t.view.setUint16(16, 4, true);
      expectRefused(t.bytes, 'BAD_TYPE', 'ET_CORE');
    });

    it('should refuse inconsistent header fields with BAD_HEADER', () => {
      const t = exec();
      t.view.setUint16(54, 32, true);
      expectRefused(t.bytes, 'BAD_HEADER', 'e_phentsize 32 is not 56');
      const u = exec();
      u.view.setUint16(62, 9, true);
      expectRefused(u.bytes, 'BAD_HEADER', 'e_shstrndx 9 beyond section count 6');
      const w = exec();
      w.bytes[6] = 0;
      expectRefused(w.bytes, 'BAD_HEADER', 'version');
    });

    it('should refuse a program header past the end of the file with TRUNCATED, naming its index and end', () => {
      const empty = { vaddr: TEXT, data: [], memSize: 0, flags: 4 };
      const t = build({ segments: [empty, empty, empty] });
      expectRefused(
        t.bytes.subarray(0, 0xd0),
        'TRUNCATED',
        't.elf: truncated: program header 2 ends at 0xe8 beyond file size 0xd0',
      );
    });

    it('should refuse segment data past the end of the file with TRUNCATED', () => {
      const t = exec();
      t.view.setBigUint64(t.phoff + 32, 0x10000n, true);
      t.view.setBigUint64(t.phoff + 40, 0x10000n, true);
      expectRefused(t.bytes, 'TRUNCATED', 'program header 0 (PT_LOAD) data ends at');
    });

    it('should refuse impossible PT_LOAD geometry with BAD_SEGMENT', () => {
      const filesz = exec();
      filesz.view.setBigUint64(filesz.phoff + 40, 1n, true);
      expectRefused(filesz.bytes, 'BAD_SEGMENT', 'p_filesz 0x5 exceeds p_memsz 0x1');
      const pow2 = exec();
      pow2.view.setBigUint64(pow2.phoff + 48, 0x1800n, true);
      expectRefused(pow2.bytes, 'BAD_SEGMENT', 'p_align 0x1800 is not a power of two');
      const congruent = exec();
      congruent.view.setBigUint64(congruent.phoff + 16, TEXT + 8n, true);
      expectRefused(congruent.bytes, 'BAD_SEGMENT', 'differ modulo p_align');
      const canonical = exec();
      canonical.view.setBigUint64(canonical.phoff + 16, 0x0000_7fff_ffff_f000n, true);
      canonical.view.setBigUint64(canonical.phoff + 40, 0x2000n, true);
      canonical.view.setBigUint64(canonical.phoff + 48, 0n, true);
      expectRefused(canonical.bytes, 'BAD_SEGMENT', 'not inside one canonical half');
    });

    it('should refuse section headers or data past the end of the file with TRUNCATED', () => {
      const t = exec();
      expectRefused(t.bytes.subarray(0, t.shoff + 100), 'TRUNCATED', 'section header 1 ends at');
      const data = exec();
      data.view.setBigUint64(SH(data, 1, 32), 0x100000n, true);
      expectRefused(data.bytes, 'TRUNCATED', 'section 1 (.text) data ends at');
      const names = exec();
      names.view.setBigUint64(SH(names, 5, 32), 0x100000n, true);
      expectRefused(names.bytes, 'TRUNCATED', 'section 5 (section-name table) data ends at');
    });

    it('should refuse inconsistent sections with BAD_SECTION', () => {
      const notStrtab = exec();
      notStrtab.view.setUint16(62, 1, true);
      expectRefused(notStrtab.bytes, 'BAD_SECTION', 'section-name table (section 1) has type 1, not SHT_STRTAB');
      const name = exec();
      name.view.setUint32(SH(name, 2, 0), 0x999, true);
      expectRefused(name.bytes, 'BAD_SECTION', 'section 2 header: name offset 0x999 beyond string table size');
      const entsize = exec();
      entsize.view.setBigUint64(SH(entsize, 3, 56), 16n, true);
      expectRefused(entsize.bytes, 'BAD_SECTION', 'section 3 (.symtab): sh_entsize 16 is not 24');
      const link = exec();
      link.view.setUint32(SH(link, 3, 40), 1, true);
      expectRefused(link.bytes, 'BAD_SECTION', 'sh_link 1 is not a string table');
      const relaLink = rel();
      relaLink.view.setUint32(SH(relaLink, 2, 40), 4, true);
      expectRefused(relaLink.bytes, 'BAD_SECTION', 'section 2 (.rela.text): sh_link 4 is not the symbol table');
      const relaInfo = rel();
      relaInfo.view.setUint32(SH(relaInfo, 2, 44), 0, true);
      expectRefused(relaInfo.bytes, 'BAD_SECTION', 'sh_info 0 names no target section');
      const rels = rel();
      rels.view.setUint32(SH(rels, 2, 4), 9, true);
      expectRefused(rels.bytes, 'BAD_SECTION', 'SHT_REL');
    });

    it('should refuse bad symbols with BAD_SYMBOL, naming the symbol', () => {
      const symAt = (t: Tiny, i: number) => t.dataAt.get('.symtab')! + 24 * i;
      const type = exec();
      type.bytes[symAt(type, 1) + 4] = 0x16; // STT_TLS
      expectRefused(type.bytes, 'BAD_SYMBOL', 'symbol 1 (add): unsupported type STT 6');
      const bind = exec();
      bind.bytes[symAt(bind, 1) + 4] = 0x32;
      expectRefused(bind.bytes, 'BAD_SYMBOL', 'unsupported binding STB 3');
      const shndx = exec();
      shndx.view.setUint16(symAt(shndx, 2) + 6, 40, true);
      expectRefused(shndx.bytes, 'BAD_SYMBOL', 'symbol 2 (counter): section index 0x28 beyond section count 6');
      const name = exec();
      name.view.setUint32(symAt(name, 1), 0x777, true);
      expectRefused(name.bytes, 'BAD_SYMBOL', 'symbol 1: name offset 0x777 beyond string table size');
    });

    it('should refuse bad relocations with BAD_RELOCATION', () => {
      expectRefused(
        rel([{ offset: 0n, symbol: 9, type: 2, addend: 0n }]).bytes,
        'BAD_RELOCATION',
        'entry 0 (R_X86_64_PC32): symbol index 9 beyond symbol count 4',
      );
      expectRefused(
        rel([{ offset: 10n, symbol: 1, type: 1, addend: 0n }]).bytes,
        'BAD_RELOCATION',
        'patches 0xa..0x12 beyond .text size 0x10',
      );
    });

    it('should refuse every truncation of a valid file with an ElfError, never another exception', () => {
      for (const t of [exec(), rel()]) {
        for (let length = 0; length < t.bytes.length; length++) {
          expect(refusal(t.bytes.subarray(0, length))).toBeInstanceOf(ElfError);
        }
      }
    });

    it('should either parse or throw ElfError whatever bytes are corrupted', () => {
      const base = [exec().bytes, rel().bytes];
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 1 }),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
          (which, patches) => {
            const bytes = base[which].slice();
            for (const [at, value] of patches) bytes[at % bytes.length] = value;
            try {
              parseElf(bytes);
            } catch (error) {
              if (!(error instanceof ElfError)) throw error;
            }
          },
        ),
        { numRuns: Number(process.env.INT3_FUZZ_RUNS ?? 2000) },
      );
    });
  });
});
