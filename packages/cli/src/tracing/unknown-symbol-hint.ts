import type { Kallsyms } from '@int3/kernel';
import { suggestNames } from '../call/suggest-names.js';

/**
 * For a `kprobe_events` line whose probe point names a symbol the kernel does not have, the words
 * `; unknown symbol 'X', did you mean Y, Z?` (or just the first part when nothing is close); `''`
 * when the symbol exists or the probe point is an address.
 *
 * @see kernel/trace/trace_kprobe.c trace_kprobe_create() (`[MOD:]SYM[+offs]|MEMADDR`)
 * @example
 * unknownSymbolHint(kallsyms, 'p:open do_sys_opn'); // "; unknown symbol 'do_sys_opn', did you mean do_sys_open?"
 */
export function unknownSymbolHint(kallsyms: Kallsyms, definition: string): string {
  const point = definition.trim().split(/\s+/)[1];
  if (point === undefined || /^(0x)?[0-9]/i.test(point)) return '';
  const symbol = point
    .replace(/^[^:]*:/, '')
    .replace(/%return$/, '')
    .replace(/\+.*$/, '');
  if (symbol === '' || kallsyms.lookupName(symbol) !== undefined) return '';
  const functions = kallsyms
    .all()
    .filter((s) => s.type === 'T' || s.type === 't')
    .map((s) => s.name);
  const near = suggestNames(symbol, functions);
  return `; unknown symbol '${symbol}'${near.length > 0 ? `, did you mean ${near.join(', ')}?` : ''}`;
}
