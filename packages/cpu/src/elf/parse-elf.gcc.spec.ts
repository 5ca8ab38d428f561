// Cross-checks the ELF parser against binutils on files gcc builds at test time, with the kernel flags
// (gcc and binutils are present on every machine of this project).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KERNEL_CFLAGS } from '../../test/support/kernel-flags.js';
import { AddressSpace } from '../address-space.js';
import { PageFlags } from '../page-flags.js';
import type { ElfFile } from './elf-file.js';
import { loadElf } from './load-elf.js';
import { parseElf } from './parse-elf.js';
import { SymbolTable } from './symbol-table.js';

const FLAGS = ['-O2', ...KERNEL_CFLAGS];

const SOURCE = `
extern long printk(const char *fmt, ...);
long counter;
long table[4] = { 1, 2, 3, 4 };
static long helper(long x) { return x * 3 + counter; }
long (*hook)(long) = helper;
const char banner[] = "int3 test";
long pick(unsigned k, long a, long b) {
  switch (k) { case 0: return a + b; case 1: return a - b; case 2: return a * b; case 3: return a ^ b;
               case 4: return a | b; case 5: return a & b; default: return -1; }
}
long add(long a, long b) { return a + b + table[a & 3]; }
long call_hook(long x) { counter++; return hook(x); }
long say(void) { return printk(banner); }
`;

let dir: string;
let exec: ElfFile;
let rel: ElfFile;

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: dir, encoding: 'utf8' });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'int3-elf-'));
  writeFileSync(join(dir, 'x.c'), SOURCE);
  writeFileSync(
    join(dir, 'k.c'),
    SOURCE.replace('extern long printk', 'long printk(const char *f, ...) { return 0; }\nextern long printk_'),
  );
  run('gcc', [...FLAGS, '-c', '-o', 'x.o', 'x.c']);
  run('gcc', [
    ...FLAGS,
    '-nostdlib',
    '-static',
    '-Wl,-Ttext=0xffffffff81000000',
    '-Wl,--build-id=none',
    '-Wl,-e,add',
    '-o',
    'k.elf',
    'k.c',
    '-lgcc',
  ]);
  exec = parseElf(readFileSync(join(dir, 'k.elf')), 'k.elf');
  rel = parseElf(readFileSync(join(dir, 'x.o')), 'x.o');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `nm --defined-only` as `name@address` strings. */
function nm(file: string): string[] {
  return run('nm', ['--defined-only', file])
    .split('\n')
    .map((l) => l.split(' '))
    .filter((f) => f.length === 3)
    .map(([address, , name]) => `${name}@${BigInt(`0x${address}`).toString(16)}`)
    .sort();
}

/** Section names in index order from `readelf -S -W`. */
function readelfSections(file: string): string[] {
  return [...run('readelf', ['-S', '-W', file]).matchAll(/^\s*\[\s*(\d+)\]\s+(\S+)/gm)]
    .filter((m) => m[1] !== '0')
    .map((m) => m[2]);
}

describe(parseElf, () => {
  it('should read the ET_EXEC sections readelf reads', () => {
    expect(exec.sections.slice(1).map((s) => s.name)).toEqual(readelfSections('k.elf'));
  });

  it('should read the PT_LOAD segments readelf reads, with their permissions', () => {
    const loads = [
      ...run('readelf', ['-l', '-W', 'k.elf']).matchAll(/^\s*LOAD\s+(\S+)\s+(\S+)\s+\S+\s+(\S+)\s+(\S+)\s+(.{3})/gm),
    ];
    expect(loads.length).toBeGreaterThan(1);
    expect(exec.segments.map((s) => [s.offset, s.vaddr, s.fileSize, s.memSize, s.read, s.write, s.execute])).toEqual(
      loads.map((m) => [
        Number(m[1]),
        BigInt(m[2]),
        Number(m[3]),
        Number(m[4]),
        m[5].includes('R'),
        m[5].includes('W'),
        m[5].includes('E'),
      ]),
    );
    expect(exec.entry).toBe(exec.symbols.find((s) => s.name === 'add')?.value);
  });

  it('should read the defined symbols nm reads, at the same addresses', () => {
    for (const [file, elf] of [
      ['k.elf', exec],
      ['x.o', rel],
    ] as const) {
      const ours = elf.symbols
        .filter((s) => s.shndx !== 0 && s.name !== '' && s.type !== 'file' && s.type !== 'section')
        .map((s) => `${s.name}@${s.value.toString(16)}`)
        .sort();
      expect(ours).toEqual(nm(file));
    }
  });

  it('should type and bind symbols as readelf does', () => {
    const byName = (name: string) => exec.symbols.find((s) => s.name === name);
    expect(byName('add')).toMatchObject({ type: 'func', bind: 'global', sectionName: '.text' });
    expect(byName('helper')).toMatchObject({ type: 'func', bind: 'local' });
    expect(byName('counter')).toMatchObject({ type: 'object', bind: 'global', sectionName: '.bss', size: 8 });
    expect(byName('k.c')).toMatchObject({ type: 'file', shndx: 0xfff1 });
  });

  it('should read the ET_REL relocations readelf reads', () => {
    const expected = [
      ...run('readelf', ['-r', '-W', 'x.o']).matchAll(/^([0-9a-f]{16})\s+([0-9a-f]{16})\s+(R_X86_64_\w+)/gm),
    ].map((m) => `${Number.parseInt(m[1], 16)} ${m[3]} ${BigInt(`0x${m[2]}`) >> 32n}`);
    const ours = rel.relocations.flatMap((r) => r.entries.map((e) => `${e.offset} ${e.typeName} ${e.symbol}`));
    expect(ours).toEqual(expected);
    const names = new Set(ours.map((l) => l.split(' ')[1]));
    for (const type of ['R_X86_64_64', 'R_X86_64_32S', 'R_X86_64_PLT32', 'R_X86_64_PC32'])
      expect(names).toContain(type);
    const printk = rel.relocations.flatMap((r) => r.entries).find((e) => rel.symbols[e.symbol].name === 'printk');
    expect(printk).toMatchObject({ typeName: 'R_X86_64_PLT32', addend: -4n });
    expect(rel.relocations.map((r) => `${r.name}->${r.targetName}`)).toContain('.rela.text->.text');
  });
});

describe(loadElf, () => {
  it('should load the gcc image so its code and data read back from the address space', () => {
    const space = new AddressSpace();
    loadElf(exec, space);
    const add = exec.symbols.find((s) => s.name === 'add')!;
    const text = exec.sections.find((s) => s.name === '.text')!;
    const offset = text.offset + Number(add.value - text.addr);
    expect([...space.read(add.value, add.size)]).toEqual([...exec.bytes.subarray(offset, offset + add.size)]);
    expect(space.flagsAt(add.value) & PageFlags.NoExecute).toBe(0);
    const table = exec.symbols.find((s) => s.name === 'table')!;
    expect(space.readU64(table.value + 24n)).toBe(4n);
    expect(space.flagsAt(table.value)).toBe(PageFlags.Present | PageFlags.Writable | PageFlags.NoExecute);
  });
});

describe(SymbolTable, () => {
  it('should symbolize addresses inside the gcc image', () => {
    const table = SymbolTable.fromElf(exec);
    const pick = table.lookup('pick')!;
    expect(table.format(pick.address + 3n)).toBe(`pick+0x3/0x${pick.size.toString(16)}`);
  });
});
