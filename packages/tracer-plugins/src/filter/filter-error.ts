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
