import { ProbeErrno, type ProbeErrnoName } from './probe-errno.js';
import { ERRORS, type ProbeErrorCode } from './probe-errors.js';

/** Where an error points: `index` selects an argv word (0 = `p:...`, 1 = the place, i + 2 = argument i). */
export interface ProbeErrorSite {
  readonly index: number;
  readonly offset: number;
}

/**
 * A rejected `kprobe_events` command: the errno the write fails with and, when the kernel logs one, the
 * `error_log` entry (code, message, the command rebuilt from argv, and the caret position under it).
 * Parsers return it as a value; it is never thrown across the package boundary.
 *
 * @see kernel/trace/trace_probe.c __trace_probe_log_err()
 */
export class ProbeParseError extends Error {
  /** The errno number (positive) the write fails with. */
  readonly errno: number;
  /** The `error_log` message, or undefined when the kernel logs nothing (an `-ECANCELED` path). */
  readonly logMessage: string | undefined;
  /** The command as `error_log` prints it: argv joined by single spaces. */
  readonly command: string;
  /** Caret column within {@link command}. */
  readonly position: number;

  constructor(
    readonly code: ProbeErrorCode | undefined,
    readonly errnoName: ProbeErrnoName,
    argv: readonly string[],
    site: ProbeErrorSite,
  ) {
    const text = code === undefined ? 'rejected without an error_log entry' : ERRORS[code];
    super(`${code ?? errnoName}: ${text}`);
    this.name = 'ProbeParseError';
    this.errno = ProbeErrno[errnoName];
    this.logMessage = code === undefined ? undefined : ERRORS[code];
    this.command = argv.join(' ');
    this.position = caretPosition(argv, site);
  }
}

/**
 * The caret column of an error site: the lengths (+1 for the joining space) of the words before
 * `index`, plus `offset`; past the last word the caret sits after the command and a space.
 *
 * @see kernel/trace/trace_probe.c __trace_probe_log_err()
 */
export function caretPosition(argv: readonly string[], site: ProbeErrorSite): number {
  let len = 0;
  let pos = 0;
  for (let i = 0; i < argv.length; i++) {
    if (i === site.index) pos = len;
    len += argv[i].length + 1;
  }
  return site.index >= argv.length ? len : pos + site.offset;
}
