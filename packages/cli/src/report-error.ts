import { CommanderError } from 'commander';
import { CliError } from './cli-error.js';
import { escapeControls } from './runtime/escape-controls.js';
import { paint, Style } from './runtime/terminal.js';

/**
 * Turns whatever a command threw into one line on `write` and an exit code: a {@link CliError} prints
 * its message (plus a `--help` hint for usage errors, then its detail lines) and exits 2 or 1; commander's own parse errors,
 * already printed by commander, exit 2 (0 for --help/--version); anything else is a bug, reported
 * as one `internal error` line (the stack only with INT3_DEBUG=1). With `color` (stderr is a terminal
 * that takes colours) the message of a failed command starts with a red `error:`. Control characters
 * in a message (from a log, an image or the guest) print as `\xNN`.
 */
export function reportError(error: unknown, write: (line: string) => void, color = false): number {
  if (error instanceof CliError) {
    const hint = error.kind === 'usage' ? ` (see 'int3 ${error.command ? `${error.command} ` : ''}--help')` : '';
    const prefix = color && error.kind !== 'interrupted' ? `${paint(Style.boldRed, 'error:')} ` : '';
    // Messages quote logs, images and guest text: their control characters are escaped.
    const detail = error.detail === undefined ? '' : `${escapeControls(error.detail)}\n`;
    write(`${prefix}${escapeControls(error.message)}${hint}\n${detail}`);
    return error.exitCode;
  }
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
  const text = error instanceof Error ? error.message : String(error);
  write(`int3: internal error: ${escapeControls(text)}\n`);
  if (process.env.INT3_DEBUG && error instanceof Error && error.stack) write(`${error.stack}\n`);
  return 1;
}
