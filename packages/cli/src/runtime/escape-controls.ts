/** C0 controls but newline and tab, DEL and the C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text that came from a log, an image or the guest, safe for a terminal: control characters other
 * than newline and tab (C0, DEL, C1: `ESC]0;…`, `ESC[2J`, the one-character CSI U+009B) print as
 * `\xNN`; everything else, printable Unicode included, stays. The same rule as `@int3/tracer-plugins`'
 * `escapeControls` (which the trace text uses), kept here so that printing an error never loads the
 * emulator.
 *
 * @example
 * escapeControls('\u001b]0;PWNED\u0007'); // '\\x1b]0;PWNED\\x07'
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
