import type { ElfSymbol, ElfSymbolBind } from './elf-file.js';

/** A symbol as the table holds it: an address-bearing function, object or label. */
export interface TableSymbol {
  readonly name: string;
  readonly address: bigint;
  /** ELF size; 0 for labels (which then reach up to the next symbol). */
  readonly size: number;
  readonly type: 'func' | 'object' | 'notype';
  readonly bind: ElfSymbolBind;
}

/** An address resolved to a symbol, as `%pS` prints it. */
export interface SymbolLocation {
  readonly name: string;
  readonly offset: number;
  readonly size: number;
}

interface Entry extends TableSymbol {
  /** Exclusive end: address + size, or the next symbol's address for a zero-size label. */
  readonly end: bigint;
}

const TYPE_RANK = { func: 0, object: 1, notype: 2 } as const;
const BIND_RANK = { global: 0, weak: 1, local: 2 } as const;

/**
 * The symbols of a linked image, by name and by address. 'file' and 'section' symbols, undefined
 * symbols and unnamed ones are left out. An address resolves to the symbol whose `[address,
 * address + size)` contains it; at equal addresses functions win over objects over labels.
 *
 * @see kernel/kallsyms.c kallsyms_lookup_name(), kallsyms_lookup_size_offset(), sprint_symbol()
 * @example
 * const table = SymbolTable.fromElf(parseElf(bytes));
 * table.format(0xffffffff81000023n); // 'h_sort+0x23/0x80'
 */
export class SymbolTable {
  private readonly byAddress: Entry[];
  /** `maxEnd[i]`: the largest `end` among `byAddress[0..i]`, to stop the backward scan early. */
  private readonly maxEnd: bigint[];
  private readonly byName = new Map<string, TableSymbol[]>();

  constructor(symbols: Iterable<TableSymbol>) {
    const sorted = [...symbols].sort(
      (a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0) || TYPE_RANK[a.type] - TYPE_RANK[b.type],
    );
    this.byAddress = sorted.map((s, i) => {
      let end = s.address + BigInt(s.size);
      if (s.size === 0) {
        let next = i + 1;
        while (next < sorted.length && sorted[next].address === s.address) next++;
        end = next < sorted.length ? sorted[next].address : s.address + 1n;
      }
      return { ...s, end };
    });
    let max = 0n;
    this.maxEnd = this.byAddress.map((e) => (max = e.end > max ? e.end : max));
    for (const s of sorted) {
      const list = this.byName.get(s.name);
      if (list) list.push(s);
      else this.byName.set(s.name, [s]);
    }
    for (const list of this.byName.values()) list.sort((a, b) => BIND_RANK[a.bind] - BIND_RANK[b.bind]);
  }

  /** The defined, named func/object/notype symbols of an ELF file (values as addresses: ET_EXEC). */
  static fromElf(file: { readonly symbols: readonly ElfSymbol[] }): SymbolTable {
    const kept: TableSymbol[] = [];
    for (const s of file.symbols) {
      if (s.name === '' || s.shndx === 0 || (s.type !== 'func' && s.type !== 'object' && s.type !== 'notype')) continue;
      kept.push({ name: s.name, address: s.value, size: s.size, type: s.type, bind: s.bind });
    }
    return new SymbolTable(kept);
  }

  /** Number of symbols held. */
  get size(): number {
    return this.byAddress.length;
  }

  /**
   * The symbol called `name`: a global one first, then weak, then local; lowest address among equals.
   * @see kernel/kallsyms.c kallsyms_lookup_name()
   */
  lookup(name: string): TableSymbol | undefined {
    return this.byName.get(name)?.[0];
  }

  /** Every symbol called `name` (two `static` functions may share one). */
  lookupAll(name: string): readonly TableSymbol[] {
    return this.byName.get(name) ?? [];
  }

  /** Every distinct symbol name. */
  names(): IterableIterator<string> {
    return this.byName.keys();
  }

  /**
   * The symbol containing `address`, with the offset into it; undefined when none does.
   * @see kernel/kallsyms.c kallsyms_lookup_size_offset()
   */
  symbolize(address: bigint): SymbolLocation | undefined {
    const list = this.byAddress;
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].address <= address) lo = mid + 1;
      else hi = mid - 1;
    }
    // Scan back from the last symbol starting at or below `address`, while some earlier symbol could
    // still reach it; the first hit starts highest (the innermost), and sorting put functions first.
    for (let i = hi; i >= 0 && this.maxEnd[i] > address; i--) {
      const e = list[i];
      if (address >= e.end) continue;
      let best = i;
      for (let j = i - 1; j >= 0 && list[j].address === e.address; j--) if (address < list[j].end) best = j;
      const s = list[best];
      return { name: s.name, offset: Number(address - s.address), size: Number(s.end - s.address) };
    }
    return undefined;
  }

  /**
   * `%pS` style: `name+0xoff/0xsize`, or `0x<hex>` when no symbol contains the address.
   * @see lib/vsprintf.c symbol_string(), kernel/kallsyms.c sprint_symbol()
   */
  format(address: bigint): string {
    const loc = this.symbolize(address);
    if (!loc) return `0x${BigInt.asUintN(64, address).toString(16)}`;
    return `${loc.name}+0x${loc.offset.toString(16)}/0x${loc.size.toString(16)}`;
  }
}
