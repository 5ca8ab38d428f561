import type { Machine } from '@int3/kernel';
import type { ProbeResolver } from '../probe-events/probe-definition.js';
import type { SymbolLookup } from '../probe-events/resolve-symbols.js';

/**
 * The parser's view of a running machine's symbol table: text symbols by name (kernel and modules), a
 * probe on offset 0 of a function is its entry, and the loaded modules.
 *
 * @see kernel/trace/trace_kprobe.c number_of_same_symbols()
 * @see kernel/kprobes.c kprobe_on_func_entry()
 */
export function machineProbeResolver(m: Machine): ProbeResolver {
  return {
    countSymbols: (name) => m.kallsyms.lookupAll(name).filter((s) => s.type.toLowerCase() === 't').length,
    functionEntry(symbol, offset) {
      const sym = m.kallsyms.lookupName(symbol);
      if (sym?.type.toLowerCase() !== 't') return 'unknown';
      return offset === 0 ? 'entry' : 'not-entry';
    },
    isModuleLoaded: (name) => m.modules.list().some((mod) => mod.name === name),
  };
}

/**
 * `kallsyms_lookup_name()` for `@SYM` fetch arguments: any symbol's address (data or text).
 *
 * @see kernel/kallsyms.c kallsyms_lookup_name()
 */
export function machineSymbolLookup(m: Machine): SymbolLookup {
  return (name) => m.kallsyms.lookupName(name)?.address;
}
