import type { CliError } from './cli-error.js';
import { escapeControls } from './runtime/escape-controls.js';
import { paint, Style } from './runtime/terminal.js';

/** The prefix of every message int3 prints on stderr, on a terminal or not (as `grep:`, `perf:`). */
export const ERROR_PREFIX = 'int3:';

/**
 * What `int3` prints on stderr for a {@link CliError}: `int3: <message>`, a `--help` hint for a usage
 * error, then its detail lines; the prefix bold red with `color` (not for an interrupted run). Control
 * characters in a message (from a log, an image or the guest) print as `\xNN`.
 *
 * @example
 * formatCliError(new CliError('usage', "bad --at 'x'", 'replay')); // "int3: bad --at 'x' (see 'int3 replay --help')\n"
 */
export function formatCliError(error: CliError, color = false): string {
  const hint = error.kind === 'usage' ? ` (see 'int3 ${error.command ? `${error.command} ` : ''}--help')` : '';
  const prefix = color && error.kind !== 'interrupted' ? paint(Style.boldRed, ERROR_PREFIX) : ERROR_PREFIX;
  const detail = error.detail === undefined ? '' : `${escapeControls(error.detail)}\n`;
  return `${prefix} ${escapeControls(error.message)}${hint}\n${detail}`;
}
