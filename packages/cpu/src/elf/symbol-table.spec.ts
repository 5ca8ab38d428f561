import { describe, expect, it } from 'vitest';
import type { ElfSymbol } from './elf-file.js';
import { SymbolTable, type TableSymbol } from './symbol-table.js';

const T = 0xffffffff81000000n;

function sym(
  name: string,
  address: bigint,
  size: number,
  type: TableSymbol['type'] = 'func',
  bind: TableSymbol['bind'] = 'global',
): TableSymbol {
  return { name, address, size, type, bind };
}

const table = new SymbolTable([
  sym('h_sort', T + 0x100n, 0x80),
  sym('h_sort_alias', T + 0x100n, 0x80, 'notype'),
  sym('table', T + 0x100n, 0x10, 'object'),
  sym('_stext', T, 0, 'notype'),
  sym('name_show', T + 0x200n, 0x20, 'func', 'local'),
  sym('name_show', T + 0x300n, 0x20, 'func', 'local'),
  sym('do_sys_open', T + 0x400n, 0x10),
  sym('weak_fn', T + 0x500n, 0x10, 'func', 'weak'),
  sym('weak_fn', T + 0x600n, 0x10, 'func', 'global'),
]);

describe(SymbolTable, () => {
  describe('lookup', () => {
    it('should find a symbol by name', () => {
      expect(table.lookup('do_sys_open')).toEqual(sym('do_sys_open', T + 0x400n, 0x10));
      expect(table.lookup('nope')).toBeUndefined();
    });

    it('should prefer a global over a weak definition and list every duplicate', () => {
      expect(table.lookup('weak_fn')?.address).toBe(T + 0x600n);
      expect(table.lookupAll('name_show').map((s) => s.address)).toEqual([T + 0x200n, T + 0x300n]);
    });
  });

  describe('symbolize', () => {
    it('should resolve an address inside a function to name, offset and size, preferring the function', () => {
      expect(table.symbolize(T + 0x123n)).toEqual({ name: 'h_sort', offset: 0x23, size: 0x80 });
      expect(table.symbolize(T + 0x100n)).toEqual({ name: 'h_sort', offset: 0, size: 0x80 });
    });

    it('should let a zero-size label reach up to the next symbol', () => {
      expect(table.symbolize(T + 0xffn)).toEqual({ name: '_stext', offset: 0xff, size: 0x100 });
    });

    it('should return undefined past the end of a sized symbol and before the first one', () => {
      expect(table.symbolize(T + 0x180n)).toBeUndefined();
      expect(table.symbolize(T - 1n)).toBeUndefined();
      expect(table.symbolize(T + 0x10000n)).toBeUndefined();
    });

    it('should resolve each of two same-named static functions by address', () => {
      expect(table.symbolize(T + 0x305n)).toEqual({ name: 'name_show', offset: 5, size: 0x20 });
    });
  });

  describe('format', () => {
    it('should print name+0xoff/0xsize as %pS does', () => {
      expect(table.format(T + 0x123n)).toBe('h_sort+0x23/0x80');
      expect(table.format(T + 0x400n)).toBe('do_sys_open+0x0/0x10');
    });

    it('should print the bare address when no symbol contains it', () => {
      expect(table.format(0x1234n)).toBe('0x1234');
    });
  });

  describe('fromElf', () => {
    it('should keep defined func/object/notype symbols and drop file, section, undefined and unnamed ones', () => {
      const base = { size: 4, bind: 'global', sectionName: '.text' } as const;
      const symbols: ElfSymbol[] = [
        { ...base, index: 0, name: '', value: 0n, type: 'notype', bind: 'local', shndx: 0, sectionName: undefined },
        { ...base, index: 1, name: 'x.c', value: 0n, type: 'file', shndx: 0xfff1, sectionName: undefined },
        { ...base, index: 2, name: '', value: T, type: 'section', shndx: 1 },
        { ...base, index: 3, name: 'printk', value: 0n, type: 'notype', shndx: 0, sectionName: undefined },
        { ...base, index: 4, name: 'f', value: T, type: 'func', shndx: 1 },
        { ...base, index: 5, name: 'jiffies', value: T + 8n, type: 'object', shndx: 2 },
      ];
      const t = SymbolTable.fromElf({ symbols });
      expect(t.size).toBe(2);
      expect([...t.names()].sort()).toEqual(['f', 'jiffies']);
    });
  });
});
