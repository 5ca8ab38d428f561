/**
 * The hist trigger errors int3 reports, with the kernel's `error_log` text.
 *
 * @see kernel/trace/trace_events_hist.c ERRORS (err_text)
 */
export const HIST_ERRORS = Object.freeze({
  NAMED_MISMATCH: "Named hist trigger doesn't match existing named trigger (includes variables)",
  TRIGGER_EEXIST: 'Hist trigger already exists',
  TRIGGER_ENOENT_CLEAR: "Can't clear or continue a nonexistent hist trigger",
  BAD_FIELD_MODIFIER: 'Invalid field modifier',
  FIELD_NOT_FOUND: "Couldn't find field",
  EMPTY_ASSIGNMENT: 'Empty assignment',
  INVALID_SORT_MODIFIER: 'Invalid sort modifier',
  EMPTY_SORT_FIELD: 'Empty sort field',
  TOO_MANY_SORT_FIELDS: 'Too many sort fields (Max = 2)',
  INVALID_SORT_FIELD: 'Sort field must be a key or a val',
  NEED_NOHC_VAL: "Non-hitcount value is required for 'nohitcount'",
} as const);

/** One of {@link HIST_ERRORS}. */
export type HistErrorCode = keyof typeof HIST_ERRORS;
