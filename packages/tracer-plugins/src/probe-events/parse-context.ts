import type { MutableFetchInsn } from './fetch-insn.js';
import type { ProbeErrnoName } from './probe-errno.js';
import type { ProbeErrorCode } from './probe-errors.js';
import { ProbeParseError } from './probe-parse-error.js';

/** Instructions per argument; the last slot is reserved for `end`. @see FETCH_INSN_MAX */
export const FETCH_INSN_MAX = 16;

/**
 * Parser state shared along one command: the argv being logged against, the current word (`index`)
 * and caret `offset` within it, and what the probe point allows.
 *
 * @see kernel/trace/trace_probe.h struct traceprobe_parse_context
 */
export interface ParseContext {
  readonly argv: readonly string[];
  index: number;
  offset: number;
  /** TPARG_FL_RETURN: a return probe on a symbol. */
  readonly isReturn: boolean;
  /** TPARG_FL_FENTRY: an entry probe on a function entry. */
  readonly functionEntry: boolean;
}

/** The code buffer of one argument being compiled, and the cursor the kernel calls `code`. */
export interface CodeBuffer {
  readonly code: MutableFetchInsn[];
  pc: number;
}

/**
 * Raises an error at `offset` within the current word, as `trace_probe_log_err()` logs it. The throw
 * stays inside the parser: the entry points turn it into a returned value.
 *
 * @see kernel/trace/trace_probe.c __trace_probe_log_err()
 */
export function probeLogErr(
  ctx: ParseContext,
  offset: number,
  code: ProbeErrorCode,
  errno: ProbeErrnoName = 'EINVAL',
): never {
  throw new ProbeParseError(code, errno, ctx.argv, { index: ctx.index, offset });
}

/** `tparg_is_function_entry()`: an entry probe on a function entry. */
export function isFunctionEntryCtx(ctx: ParseContext): boolean {
  return ctx.functionEntry && !ctx.isReturn;
}

/** `isalpha()` on the first char, or `_`. */
export function isAlphaOrUnderscore(c: string | undefined): boolean {
  return c !== undefined && /^[A-Za-z_]$/.test(c);
}

/** `isdigit()`. */
export function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * A C identifier: first char alpha or `_`, the rest alnum or `_`.
 *
 * @see kernel/trace/trace.h is_good_name()
 */
export function isGoodName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

/**
 * Like {@link isGoodName} but `-` is also allowed anywhere.
 *
 * @see kernel/trace/trace.h is_good_system_name()
 */
export function isGoodSystemName(name: string): boolean {
  return /^[A-Za-z_-][A-Za-z0-9_-]*$/.test(name);
}
