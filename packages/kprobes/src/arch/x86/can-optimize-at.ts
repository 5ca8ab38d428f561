import type { KprobesHost } from '../../core/kprobes-host.js';
import { canOptimize, type NotOptimizable, type OptimizableRegion } from './can-optimize.js';
import type { RecoverByte } from './fetch-insn-bytes.js';

/**
 * {@link canOptimize} on a live machine: the function's bounds from kallsyms
 * (`kallsyms_lookup_size_offset`), entry text from the image's `__entry_text_start/_end`, the
 * exception tables from `exTable` (the kernel's and loaded modules'), text read from kernel
 * memory, and the original bytes under armed or optimized probes through `recover`. An address no
 * symbol covers is refused as `outside-function`.
 * @see arch/x86/kernel/kprobes/opt.c can_optimize(), copy_optimized_instructions()
 * @example
 * const r = canOptimizeAt(host, host.kallsyms.lookupName('optprobe_target')!.address);
 * if (!r.ok) console.log(r.reason, r.message);
 */
export function canOptimizeAt(
  m: Pick<KprobesHost, 'kallsyms' | 'space' | 'symbols' | 'exTable'>,
  addr: bigint,
  recover?: RecoverByte,
): OptimizableRegion | NotOptimizable {
  const loc = m.kallsyms.lookup(addr);
  if (!loc) {
    return Object.freeze({
      ok: false,
      reason: 'outside-function',
      errno: 'EILSEQ',
      at: addr,
      message: `${m.kallsyms.format(addr)} is not inside a known function`,
    });
  }
  const space = m.space;
  const { __entry_text_start: entryStart, __entry_text_end: entryEnd } = m.symbols;
  return canOptimize(
    (a) => (space.isMapped(a) ? space.readU8(a) : undefined),
    loc.sym.address,
    BigInt(loc.sym.size),
    addr,
    {
      inEntryText: entryStart !== undefined && entryEnd !== undefined && addr >= entryStart && addr < entryEnd,
      inExceptionTable: (a) => m.exTable.has(a),
      recover,
    },
  );
}
