import type { LoadedModule } from '@int3/kernel';
import type { BlacklistEntry } from './blacklist-entry.js';
import type { KprobesHost } from './kprobes-host.js';

export type { BlacklistEntry };

/**
 * Where kprobes refuses to probe: its own text (`.kprobes.text`: the trampoline, `jprobe_return`), the
 * syscall entry text (`__entry_text_start..__entry_text_end`), and the host-call gates.
 *
 * @see kernel/kprobes.c within_kprobe_blacklist(), populate_kprobe_blacklist()
 */
export class Blacklist {
  private readonly entries: BlacklistEntry[] = [];

  constructor(private readonly m: Pick<KprobesHost, 'symbols' | 'kallsyms' | 'space'>) {
    const s = m.symbols;
    // One entry per function address, as kprobe_add_area_blacklist() walks the area (a marker such as
    // __entry_text_start shares its address with the first function).
    const seen = new Set<bigint>();
    for (const sym of m.kallsyms.all()) {
      if (sym.type.toLowerCase() !== 't' || sym.address < s.__entry_text_start || sym.address >= s.__entry_text_end) {
        continue;
      }
      if (seen.has(sym.address)) continue;
      seen.add(sym.address);
      this.entries.push({ start: sym.address, end: sym.address + BigInt(sym.size), name: sym.name });
    }
    this.entries.push({ start: s.__hostcall_start, end: s.__hostcall_end, name: '__hostcall_start' });
  }

  /** Adds ranges (kprobes' own text). */
  addText(ranges: readonly BlacklistEntry[]): void {
    this.entries.push(...ranges);
  }

  /**
   * A module's own blacklist, as Linux takes it when the module comes: its `.kprobes.text` (`__kprobes`
   * functions) and every function its `_kprobe_blacklist` section names (`NOKPROBE_SYMBOL()`).
   * @see kernel/kprobes.c add_module_kprobe_blacklist()
   */
  addModule(mod: LoadedModule): void {
    const text = mod.sections.get('.kprobes.text');
    const size = mod.sectionSizes?.get('.kprobes.text') ?? 0;
    if (text !== undefined && size > 0)
      this.entries.push({ start: text, end: text + BigInt(size), name: `[${mod.name}]` });
    const list = mod.sections.get('_kprobe_blacklist');
    const count = Math.floor((mod.sectionSizes?.get('_kprobe_blacklist') ?? 0) / 8);
    for (let i = 0; list !== undefined && i < count; i++) {
      const addr = this.m.space.readU64(list + BigInt(8 * i));
      const loc = this.m.kallsyms.lookup(addr);
      if (loc === undefined) continue;
      this.entries.push({
        start: loc.sym.address,
        end: loc.sym.address + BigInt(Math.max(1, loc.sym.size)),
        name: loc.sym.name,
      });
    }
  }

  /** Drops the entries inside a module going away. @see kernel/kprobes.c remove_module_kprobe_blacklist() */
  removeModule(mod: LoadedModule): void {
    const inside = (e: BlacklistEntry) =>
      mod.regions.some(([start, size]) => e.start >= start && e.start < start + BigInt(size));
    for (let i = this.entries.length - 1; i >= 0; i--) if (inside(this.entries[i])) this.entries.splice(i, 1);
  }

  /** The entry containing `address`, if any. */
  find(address: bigint): BlacklistEntry | undefined {
    return this.entries.find((e) => address >= e.start && address < e.end);
  }

  /**
   * `/sys/kernel/debug/kprobes/blacklist`: `0x%px-0x%px\t%ps` per entry, in address order.
   * @see kernel/kprobes.c kprobe_blacklist_seq_show()
   */
  text(): string {
    const px = (v: bigint) => `0x${v.toString(16).padStart(16, '0')}`;
    return [...this.entries]
      .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0))
      .map((e) => `${px(e.start)}-${px(e.end)}\t${this.m.kallsyms.lookup(e.start)?.sym.name ?? e.name}\n`)
      .join('');
  }
}
