import type { ProbeResolver } from '../probe-events/probe-definition.js';
import type { SymbolLookup } from '../probe-events/resolve-symbols.js';
import type { MachineView } from '../view/machine-view.js';

/**
 * The parser's view of a running machine's symbol table: text symbols by name (kernel and modules), a
 * probe on offset 0 of a function is its entry, and the loaded modules.
 *
 * @see kernel/trace/trace_kprobe.c number_of_same_symbols()
 * @see kernel/kprobes.c kprobe_on_func_entry()
 */
export function machineProbeResolver(view: MachineView): ProbeResolver {
  return {
    countSymbols: (name) => view.countFunctions(name),
    functionEntry(symbol, offset) {
      if (!view.isFunction(symbol)) return 'unknown';
      return offset === 0 ? 'entry' : 'not-entry';
    },
    isModuleLoaded: (name) => view.isModuleLoaded(name),
  };
}

/**
 * `kallsyms_lookup_name()` for `@SYM` fetch arguments: any symbol's address (data or text).
 *
 * @see kernel/kallsyms.c kallsyms_lookup_name()
 */
export function machineSymbolLookup(view: MachineView): SymbolLookup {
  return (name) => view.symbols.lookupName(name);
}
