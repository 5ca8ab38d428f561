import type { KsymLocation } from '@int3/kernel';

/**
 * The kernel's symbol table (kernel and loaded modules), read-only.
 *
 * @see kernel/kallsyms.c kallsyms_lookup(), kallsyms_lookup_name(), sprint_symbol()
 * @example
 * ctx.symbols.format(ip);            // 'vfs_read+0x4/0x9a'
 * ctx.symbols.lookupName('vfs_read'); // 0xffffffff81234560n
 * ctx.symbols.functions('vfs_*');     // ['vfs_read', 'vfs_write', ...]
 */
export interface TracerSymbols {
  /** The symbol holding `address` and the offset in it. @see kallsyms_lookup() */
  lookup(address: bigint): KsymLocation | undefined;
  /** `%pS`: `sym+0xoff/0xsize`, with ` [module]` for a module's; `0x<hex>` when unknown. @see sprint_symbol() */
  format(address: bigint): string;
  /** The address of a symbol by name (the first, when several share it). @see kallsyms_lookup_name() */
  lookupName(name: string): bigint | undefined;
  /**
   * The text symbols (functions) whose names match a glob (`*`, `?`, `[...]`), each name once, in
   * kallsyms order. @see kernel/trace/ftrace.c available_filter_functions
   */
  functions(glob: string): string[];
}
