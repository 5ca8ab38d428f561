import type { ProbeArg, ProbeDefinition } from './probe-definition.js';
import { ProbeParseError } from './probe-parse-error.js';

function sameArgType(a: ProbeArg, b: ProbeArg): boolean {
  return a.type === b.type && a.count === b.count && a.name === b.name;
}

/**
 * The 1-based index of the first argument whose type, array count or name differs (a count mismatch
 * points one past the shorter list), or 0 when all match.
 *
 * @see kernel/trace/trace_probe.c trace_probe_compare_arg_type()
 */
export function traceProbeCompareArgType(a: ProbeDefinition, b: ProbeDefinition): number {
  if (a.args.length < b.args.length) return a.args.length + 1;
  if (a.args.length > b.args.length) return b.args.length + 1;
  for (let i = 0; i < a.args.length; i++) if (!sameArgType(a.args[i], b.args[i])) return i + 1;
  return 0;
}

function placeKey(d: ProbeDefinition): string {
  return `${d.symbol ?? 'unknown'}+${d.offset}`;
}

/**
 * Whether `def` repeats a probe of the event: same symbol and offset, same argument texts. Address
 * probes compare as the symbol `unknown`, as in the kernel.
 *
 * @see kernel/trace/trace_kprobe.c trace_kprobe_has_same_kprobe()
 */
export function hasSameProbe(existing: readonly ProbeDefinition[], def: ProbeDefinition): boolean {
  return existing.some(
    (orig) => placeKey(orig) === placeKey(def) && orig.args.every((a, i) => a.comm === def.args[i]?.comm),
  );
}

/**
 * Decides whether `def` may join an existing event whose probes are `existing` (multiprobe): a different
 * probe type fails DIFF_PROBE_TYPE at the first word, different arguments DIFF_ARG_TYPE at the first
 * differing argument, a repeat SAME_PROBE; all fail with -EEXIST. `undefined` means append.
 *
 * @see kernel/trace/trace_kprobe.c register_trace_kprobe(), append_trace_kprobe()
 */
export function checkAppendProbe(
  existing: readonly ProbeDefinition[],
  def: ProbeDefinition,
): ProbeParseError | undefined {
  const first = existing[0];
  if (!first) return undefined;
  if (first.kind !== def.kind)
    return new ProbeParseError('DIFF_PROBE_TYPE', 'EEXIST', def.argv, { index: 0, offset: 0 });
  const diff = traceProbeCompareArgType(def, first);
  if (diff) return new ProbeParseError('DIFF_ARG_TYPE', 'EEXIST', def.argv, { index: diff + 1, offset: 0 });
  if (hasSameProbe(existing, def))
    return new ProbeParseError('SAME_PROBE', 'EEXIST', def.argv, { index: 0, offset: 0 });
  return undefined;
}
