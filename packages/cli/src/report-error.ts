import { CommanderError } from 'commander';
import { CliError } from './cli-error.js';
import { ERROR_PREFIX, formatCliError } from './format-cli-error.js';
import { escapeControls } from './runtime/escape-controls.js';

/**
 * Turns whatever a command threw into one line on `write` and an exit code: a {@link CliError} prints
 * `int3: <message>` (plus a `--help` hint for usage errors, then its detail lines) and exits 2, 1 or 130;
 * commander's own parse errors, already printed by commander (see {@link commanderErrorLine}), exit 2
 * (0 for --help/--version); anything else is a bug, reported as one `int3: internal error` line (the
 * stack only with INT3_DEBUG=1). With `color` (stderr is a terminal that takes colours) the prefix of
 * a failed command is bold red. Control characters in a message (from a log, an image or the guest)
 * print as `\xNN`.
 */
export function reportError(error: unknown, write: (line: string) => void, color = false): number {
  if (error instanceof CliError) {
    write(formatCliError(error, color));
    return error.exitCode;
  }
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
  const text = error instanceof Error ? error.message : String(error);
  write(`${ERROR_PREFIX} internal error: ${escapeControls(text)}\n`);
  if (process.env.INT3_DEBUG && error instanceof Error && error.stack) write(`${error.stack}\n`);
  return 1;
}

/**
 * commander's error text (`error: unknown option '-x'`) with int3's prefix instead of `error:`, for
 * `configureOutput({ outputError })`.
 *
 * @example
 * commanderErrorLine("error: unknown option '--bogus'\n"); // "int3: unknown option '--bogus'\n"
 */
export function commanderErrorLine(text: string): string {
  return text.replace(/^error: /, `${ERROR_PREFIX} `);
}
