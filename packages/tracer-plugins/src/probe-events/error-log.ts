/** Entries the kernel keeps per trace instance. @see kernel/trace/trace.c TRACING_LOG_ERRS_MAX */
export const TRACING_LOG_ERRS_MAX = 8;

/** Length of `"  Command: "`, the prefix the caret line is indented by. */
const CMD_PREFIX = '  Command: ';

/** One logged error. */
export interface ErrorLogEntry {
  /** Virtual time in nanoseconds. */
  readonly timestampNs: bigint;
  /** `trace_kprobe` for kprobe events. */
  readonly location: string;
  readonly message: string;
  readonly command: string;
  readonly position: number;
}

/**
 * The tracefs `error_log` file: a ring of the last {@link TRACING_LOG_ERRS_MAX} parse errors, each
 * printed as three lines (timestamp, location and message; the command; a caret under the culprit).
 *
 * @see kernel/trace/trace.c tracing_log_err(), tracing_err_log_seq_show()
 * @example
 * const log = new ErrorLog();
 * log.append({ timestampNs: 123_456_789_000n, location: 'trace_kprobe', message: m, command: c, position: 11 });
 * log.show();
 */
export class ErrorLog {
  readonly #entries: ErrorLogEntry[] = [];

  /** Logs an error, dropping the oldest past eight. */
  append(entry: ErrorLogEntry): void {
    if (this.#entries.length === TRACING_LOG_ERRS_MAX) this.#entries.shift();
    this.#entries.push(Object.freeze({ ...entry }));
  }

  /** The entries (each frozen), for a machine snapshot. */
  save(): readonly ErrorLogEntry[] {
    return Object.freeze([...this.#entries]);
  }

  /** Puts back what {@link save} returned. */
  restore(s: readonly ErrorLogEntry[]): void {
    this.#entries.splice(0, this.#entries.length, ...s);
  }

  /** Empties the log, as a truncating write (`echo > error_log`) does. @see clear_tracing_err_log() */
  clear(): void {
    this.#entries.length = 0;
  }

  /** The entries, oldest first. */
  get entries(): readonly ErrorLogEntry[] {
    return this.#entries.slice();
  }

  /** The file's text. */
  show(): string {
    return this.#entries.map(formatErrorLogEntry).join('');
  }
}

/**
 * One entry as `error_log` prints it: `[%5llu.%06u] <loc>: error: <msg>`, the command, and a caret
 * indented by 11 + position spaces.
 *
 * @see kernel/trace/trace.c tracing_err_log_seq_show(), tracing_err_log_show_pos()
 */
export function formatErrorLogEntry(e: ErrorLogEntry): string {
  const sec = e.timestampNs / 1_000_000_000n;
  const usec = (e.timestampNs % 1_000_000_000n) / 1000n;
  const head = `[${sec.toString().padStart(5)}.${usec.toString().padStart(6, '0')}] ${e.location}: error: ${e.message}`;
  return `${head}\n${CMD_PREFIX}${e.command}\n${' '.repeat(CMD_PREFIX.length + e.position)}^\n`;
}
