/**
 * kallsyms: every symbol of the kernel image, loaded modules and kprobes' own text, by name and by
 * address. A symbol's size, as in Linux, runs to the next symbol at a higher address (so it includes
 * alignment padding); the last symbol of a region keeps its ELF size.
 *
 * @see kernel/kallsyms.c kallsyms_lookup_name(), kallsyms_lookup_size_offset(), sprint_symbol()
 */

/** Where a symbol lives, which decides its `nm` letter. */
export type KsymKind = 'text' | 'rodata' | 'data' | 'bss' | 'abs';

/** A symbol as given to {@link Kallsyms.addRegion}. */
export interface KsymInput {
  readonly name: string;
  readonly address: bigint;
  /** ELF size; used only when no later symbol bounds this one. */
  readonly size: number;
  readonly kind: KsymKind;
  readonly global: boolean;
}

/** A symbol as kallsyms knows it. */
export interface Ksym {
  readonly name: string;
  readonly address: bigint;
  /** Distance to the next symbol (Linux semantics). */
  readonly size: number;
  /** The `nm`-style type letter: `T`/`t` text, `R`/`r`, `D`/`d`, `B`/`b`, `A`/`a`. */
  readonly type: string;
  /** Owning module, or undefined for the core kernel. */
  readonly module?: string;
}

/** An address resolved to its symbol. */
export interface KsymLocation {
  readonly sym: Ksym;
  readonly offset: number;
}

const LETTER: Record<KsymKind, string> = { text: 't', rodata: 'r', data: 'd', bss: 'b', abs: 'a' };

interface Region {
  readonly module: string | undefined;
  readonly inputs: readonly KsymInput[];
}

/** The regions of a {@link Kallsyms}, by key, in insertion order (for machine snapshots). */
export type KallsymsState = readonly (readonly [string, Region])[];

/**
 * The symbol index. Regions (the core image, each module, kprobes' text) are added and removed whole;
 * indexes are rebuilt lazily after a change.
 *
 * @example
 * const ks = new Kallsyms();
 * ks.addRegion(undefined, symbols);
 * ks.format(0xffffffff81000010n); // 'do_sys_open+0x10/0xd6'
 */
export class Kallsyms {
  private readonly regions = new Map<string, Region>();
  private sorted: Ksym[] | undefined;
  private byName: Map<string, Ksym[]> | undefined;

  /** Adds (or replaces) the symbols of a region; `module` undefined is the core kernel. */
  addRegion(module: string | undefined, inputs: Iterable<KsymInput>, key: string = module ?? 'vmlinux'): void {
    const kept = [...inputs].filter((s) => s.name !== '' && !s.name.startsWith('.L') && !s.name.startsWith('$'));
    this.regions.set(key, { module, inputs: kept });
    this.invalidate();
  }

  /** Removes a region's symbols (module unload). */
  removeRegion(key: string): void {
    if (this.regions.delete(key)) this.invalidate();
  }

  /**
   * The regions as they are now (regions are immutable, so they are shared).
   * @internal Snapshot plumbing: the machine snapshot saves and restores it.
   */
  save(): KallsymsState {
    return Object.freeze([...this.regions]);
  }

  /**
   * Puts back the regions of a {@link save}.
   * @internal Snapshot plumbing: the machine snapshot saves and restores it.
   */
  restore(state: KallsymsState): void {
    this.regions.clear();
    for (const [key, region] of state) this.regions.set(key, region);
    this.invalidate();
  }

  /**
   * First symbol of that name; `mod:name` restricts to a module.
   * @see kernel/kallsyms.c kallsyms_lookup_name()
   */
  lookupName(name: string): Ksym | undefined {
    return this.lookupAll(name)[0];
  }

  /** Every symbol of that name (`mod:name` restricts to a module), in address order. */
  lookupAll(name: string): readonly Ksym[] {
    const colon = name.indexOf(':');
    const index = this.names();
    if (colon < 0) return index.get(name) ?? [];
    const mod = name.slice(0, colon);
    return (index.get(name.slice(colon + 1)) ?? []).filter((s) => s.module === mod);
  }

  /** Names that more than one symbol carries (e.g. two `static` functions called `name_show`). */
  duplicates(): string[] {
    return [...this.names()]
      .filter(([, v]) => v.length > 1)
      .map(([k]) => k)
      .sort();
  }

  /**
   * The symbol containing `address`, if any.
   * @see kernel/kallsyms.c kallsyms_lookup_size_offset()
   */
  lookup(address: bigint): KsymLocation | undefined {
    const list = this.all();
    let lo = 0;
    let hi = list.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].address <= address) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return undefined;
    const sym = list[found];
    const offset = Number(address - sym.address);
    if (offset >= Math.max(sym.size, 1)) return undefined;
    return { sym, offset };
  }

  /**
   * `%pS`: `sym+0xoff/0xsize`, with ` [module]` for module symbols; `0x<hex>` when unknown.
   * @see lib/vsprintf.c symbol_string(), kernel/kallsyms.c sprint_symbol()
   */
  format(address: bigint): string {
    const loc = this.lookup(address);
    if (!loc) return `0x${address.toString(16)}`;
    const mod = loc.sym.module ? ` [${loc.sym.module}]` : '';
    return `${loc.sym.name}+0x${loc.offset.toString(16)}/0x${loc.sym.size.toString(16)}${mod}`;
  }

  /** All symbols in address order (ties in name order). */
  all(): readonly Ksym[] {
    if (!this.sorted) this.sorted = this.build();
    return this.sorted;
  }

  private names(): Map<string, Ksym[]> {
    if (!this.byName) {
      const m = new Map<string, Ksym[]>();
      for (const s of this.all()) {
        const list = m.get(s.name);
        if (list) list.push(s);
        else m.set(s.name, [s]);
      }
      this.byName = m;
    }
    return this.byName;
  }

  private build(): Ksym[] {
    const out: Ksym[] = [];
    for (const region of this.regions.values()) {
      const inputs = [...region.inputs].sort((a, b) =>
        a.address === b.address ? (a.name < b.name ? -1 : 1) : a.address < b.address ? -1 : 1,
      );
      for (let i = 0; i < inputs.length; i++) {
        const s = inputs[i];
        let next = i + 1;
        while (next < inputs.length && inputs[next].address === s.address) next++;
        const bounded = s.kind !== 'abs' && next < inputs.length && inputs[next].kind === s.kind;
        const size = bounded ? Number(inputs[next].address - s.address) : s.size;
        const letter = LETTER[s.kind];
        out.push(
          Object.freeze({
            name: s.name,
            address: s.address,
            size,
            type: s.global ? letter.toUpperCase() : letter,
            ...(region.module ? { module: region.module } : {}),
          }),
        );
      }
    }
    return out.sort((a, b) =>
      a.address === b.address ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.address < b.address ? -1 : 1,
    );
  }

  private invalidate(): void {
    this.sorted = undefined;
    this.byName = undefined;
  }
}
