/** The write buffer of `kprobe_events`; a line must fit in it with its newline and NUL. @see WRITE_BUFSIZE */
export const WRITE_BUFSIZE = 4096;

/** The warning a too-long line raises (`pr_warn`, not error_log). */
export const LINE_TOO_LONG_MESSAGE = `Line length is too long: Should be less than ${WRITE_BUFSIZE - 2}`;

/** Lines to run, and whether the write stopped at a too-long line (which fails it with -EINVAL). */
export interface SplitLines {
  /** Each line with its `#` comment removed, in order (empty ones included; they are no-ops). */
  readonly lines: readonly string[];
  readonly tooLong: boolean;
}

/**
 * Splits a write into command lines on `\n` and drops `#` comments. A line longer than 4094
 * characters stops the split: the lines before it still run.
 *
 * @see kernel/trace/trace.c trace_parse_run_command()
 */
export function splitCommandLines(text: string): SplitLines {
  const lines: string[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl < 0 ? text.length : nl;
    // A terminated line needs room for '\n' and NUL; the last unterminated one only for the NUL.
    if (end - at > (nl < 0 ? WRITE_BUFSIZE - 1 : WRITE_BUFSIZE - 2)) return { lines, tooLong: true };
    const line = text.slice(at, end);
    const hash = line.indexOf('#');
    lines.push(hash < 0 ? line : line.slice(0, hash));
    at = end + 1;
  }
  return { lines, tooLong: false };
}

/**
 * Splits a line into words on runs of whitespace.
 *
 * @see lib/argv_split.c argv_split()
 */
export function argvSplit(line: string): string[] {
  return line.split(/[ \t\n\v\f\r]+/).filter((w) => w.length > 0);
}
