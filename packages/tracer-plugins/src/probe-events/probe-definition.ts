import type { FetchInsn } from './fetch-insn.js';
import type { FetchType } from './fetch-type.js';

/**
 * One parsed fetch argument: its field name, original text, compiled program and type.
 *
 * @see kernel/trace/trace_probe.h struct probe_arg
 */
export interface ProbeArg {
  /** Field name: the given `NAME=` or `arg<i+1>`. */
  readonly name: string;
  /** The text after `NAME=` (fetcharg and `:TYPE`), as read-back prints it. */
  readonly comm: string;
  readonly type: FetchType;
  /** The type text as written (`b4@2/8`, `u8`); undefined when omitted. */
  readonly typeText: string | undefined;
  /** Array length, 0 for a scalar. */
  readonly count: number;
  /** Offset of the argument within the argument area (after the probe head). */
  readonly offset: number;
  /** True for strings: the fixed part holds a `__data_loc` word. */
  readonly dynamic: boolean;
  readonly code: readonly FetchInsn[];
}

/**
 * A parsed `p`/`r` definition line, immutable.
 *
 * @see kernel/trace/trace_kprobe.c struct trace_kprobe
 */
export interface ProbeDefinition {
  /** `r` for return probes, including `SYM%return`. */
  readonly kind: 'p' | 'r';
  readonly group: string;
  readonly event: string;
  /** Probed symbol including any `MOD:` prefix, without offset or `%return`; undefined for MEMADDR. */
  readonly symbol: string | undefined;
  /** The `MOD` of `MOD:SYM`. */
  readonly module: string | undefined;
  readonly offset: number;
  /** The MEMADDR, for address probes. */
  readonly address: bigint | undefined;
  /** `r<N>` maxactive, 0 when omitted. */
  readonly maxactive: number;
  /** The probe sits on a function entry (enables `$argN` on `p` probes). */
  readonly functionEntry: boolean;
  readonly args: readonly ProbeArg[];
  /** Bytes of the fixed argument area (the kernel's `tp->size`). */
  readonly size: number;
  /** The command words, for error_log entries raised after parsing (registration, multiprobe). */
  readonly argv: readonly string[];
}

/**
 * A `-:[GRP/][EVENT] [SYM[+OFFS]|0xADDR [NAME=ARG...]]` removal request.
 *
 * @see kernel/trace/trace_dynevent.c dyn_event_release()
 */
export interface ProbeRemoval {
  readonly group: string | undefined;
  /** Empty with a group: every event of the group. */
  readonly event: string;
  /** Words after the name, matched against a probe's command head. */
  readonly args: readonly string[];
}

/** What a `kprobe_events` line asks for. */
export type ProbeCommand =
  | { readonly type: 'define'; readonly definition: ProbeDefinition }
  | { readonly type: 'remove'; readonly removal: ProbeRemoval };

/**
 * What the parser needs from the kernel's symbol table at parse time.
 *
 * @see kernel/trace/trace_kprobe.c number_of_same_symbols()
 * @see kernel/kprobes.c kprobe_on_func_entry()
 */
export interface ProbeResolver {
  /** How many text symbols have this name (no `MOD:` prefix), across kernel and modules. */
  countSymbols(name: string): number;
  /**
   * Whether `symbol + offset` (symbol may be `MOD:SYM`) is a function entry: `entry`, `not-entry`
   * (`-EINVAL`), or `unknown` when the symbol is not found (`-ENOENT`, deferred to registration).
   */
  functionEntry(symbol: string, offset: number): 'entry' | 'not-entry' | 'unknown';
  /** Whether the module is loaded (a probe on an unloaded module's symbol is accepted and deferred). */
  isModuleLoaded(name: string): boolean;
}
