import type { FetchInsn } from './fetch-insn.js';
import { kstrtol } from './kstrto.js';
import type { ProbeDefinition } from './probe-definition.js';
import { ProbeParseError } from './probe-parse-error.js';
import type { ProbeParseResult } from './probe-parse-result.js';

/** Looks a data symbol up by name (`kallsyms_lookup_name`); undefined when unknown. */
export type SymbolLookup = (name: string) => bigint | undefined;

function resolveCode(code: readonly FetchInsn[], lookup: SymbolLookup): readonly FetchInsn[] | undefined {
  if (!code.some((c) => c.op === 'symbol')) return code;
  const out = code.slice();
  for (let i = 0; i < out.length; i++) {
    const insn = out[i];
    if (insn.op !== 'symbol') continue;
    const text = insn.data ?? '';
    const sign = text.search(/[+-]/);
    const offset = sign >= 0 ? kstrtol(text.slice(sign), 0) : 0n;
    const base = lookup(sign >= 0 ? text.slice(0, sign) : text);
    if (offset === undefined || !base || out[i + 1]?.op !== 'imm') return undefined;
    out[i + 1] = Object.freeze({ ...out[i + 1], immediate: BigInt.asUintN(64, base + offset) });
  }
  return Object.freeze(out);
}

/**
 * Fills in the addresses of `@SYM[+|-offs]` arguments, as registration does. An unknown symbol fails
 * with `BAD_PROBE_ADDR` (`-ENOENT`) pointing at the probe place (argv index 1).
 *
 * @see kernel/trace/trace_probe.c traceprobe_update_arg()
 */
export function resolveSymbols(def: ProbeDefinition, lookup: SymbolLookup): ProbeParseResult<ProbeDefinition> {
  const args = [];
  for (const arg of def.args) {
    const code = resolveCode(arg.code, lookup);
    if (!code) {
      const error = new ProbeParseError('BAD_PROBE_ADDR', 'ENOENT', def.argv, { index: 1, offset: 0 });
      return { ok: false, error };
    }
    args.push(code === arg.code ? arg : Object.freeze({ ...arg, code }));
  }
  return { ok: true, value: Object.freeze({ ...def, args: Object.freeze(args) }) };
}
