import type { ErrorLog } from '../probe-events/error-log.js';

/**
 * The event filter's error table: code → message, in the kernel's order (the index is the kernel's
 * `FILT_ERR_*` number). `NONE` stands for the paths where the kernel fails without setting an error
 * (an empty operand where a field name should be, an empty filter) and prints `Error: (0)`.
 *
 * @see kernel/trace/trace_events_filter.c ERRORS / err_text[]
 */
export const FILTER_ERRORS = Object.freeze({
  NONE: 'No error',
  INVALID_OP: 'Invalid operator',
  TOO_MANY_OPEN: "Too many '('",
  TOO_MANY_CLOSE: "Too few '('",
  MISSING_QUOTE: 'Missing matching quote',
  MISSING_BRACE_OPEN: "Missing '{'",
  MISSING_BRACE_CLOSE: "Missing '}'",
  OPERAND_TOO_LONG: 'Operand too long',
  EXPECT_STRING: 'Expecting string field',
  EXPECT_DIGIT: 'Expecting numeric field',
  ILLEGAL_FIELD_OP: 'Illegal operation for field type',
  FIELD_NOT_FOUND: 'Field not found',
  ILLEGAL_INTVAL: 'Illegal integer value',
  BAD_SUBSYS_FILTER: "Couldn't find or set field in one of a subsystem's events",
  TOO_MANY_PREDS: 'Too many terms in predicate expression',
  INVALID_FILTER: 'Meaningless filter expression',
  INVALID_CPULIST: 'Invalid cpulist',
  IP_FIELD_ONLY: "Only 'ip' field is supported for function trace",
  INVALID_VALUE: 'Invalid value (did you forget quotes)?',
  NO_FUNCTION: 'Function not found',
  ERRNO: 'Error',
  NO_FILTER: 'No filter found',
} as const);

/** One of the `FILT_ERR_*` names. */
export type FilterErrorCode = keyof typeof FILTER_ERRORS;

/**
 * A refused filter: the code, the kernel's error position (`lasterr_pos`, a byte index into the
 * filter text) and the errno the write returns.
 *
 * @see kernel/trace/trace_events_filter.c struct filter_parse_error, parse_error()
 */
export interface FilterParseError {
  readonly code: FilterErrorCode;
  readonly pos: number;
  readonly errno: 'EINVAL' | 'EPERM';
}

/**
 * The text a `filter` file holds after a failed write: the filter, a caret line, and
 * `parse_error: <message>` (or `Error: (0)` for {@link FilterParseError} code `NONE`).
 *
 * @see kernel/trace/trace_events_filter.c append_filter_err()
 * @example
 * formatFilterError('foo == 1', { code: 'FIELD_NOT_FOUND', pos: 4, errno: 'EINVAL' });
 * // 'foo == 1\n    ^\nparse_error: Field not found\n'
 */
export function formatFilterError(text: string, error: FilterParseError): string {
  if (error.code === 'NONE') return `${text}\nError: (0)\n`;
  // The kernel prints "^" right-aligned in pos + 1 columns (pos 0: no padding), clamped to the text.
  const column = Math.min(error.pos, text.length);
  return `${text}\n${' '.repeat(column)}^\nparse_error: ${FILTER_ERRORS[error.code]}\n`;
}

/** Where a refused filter is logged: tracefs's `error_log` and the virtual clock. */
export interface FilterErrorSink {
  readonly errorLog: ErrorLog;
  /** Virtual time in ns. */
  now(): number;
}

/**
 * Logs a refused filter to `error_log` as the kernel does for an event's `filter` file and for a
 * trigger's `if FILTER`: location `event filter parse error`, the error's message and position under
 * the filter text — or, for a failure without an error code ({@link FILTER_ERRORS} `NONE`), the
 * message `Error` at position 0 (the kernel's `FILT_ERR_ERRNO`).
 *
 * @see kernel/trace/trace_events_filter.c append_filter_err()
 * @example
 * logFilterError(sink, 'foo == 1', { code: 'FIELD_NOT_FOUND', pos: 0, errno: 'EINVAL' });
 * // error_log: [    0.000000] event filter parse error: error: Field not found / Command: foo == 1
 */
export function logFilterError(sink: FilterErrorSink, text: string, error: FilterParseError): void {
  const coded = error.code !== 'NONE';
  sink.errorLog.append({
    timestampNs: BigInt(Math.floor(sink.now())),
    location: 'event filter parse error',
    message: coded ? FILTER_ERRORS[error.code] : FILTER_ERRORS.ERRNO,
    command: text,
    position: coded ? error.pos : 0,
  });
}
