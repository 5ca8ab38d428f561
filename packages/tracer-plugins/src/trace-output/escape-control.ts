import { sequenceLength, utf8CodePoint } from './utf8-sequence.js';

const HEX = '0123456789abcdef';

/** `\xNN` for a byte. */
function hexByte(b: number): string {
  return `\\x${HEX[b >> 4]}${HEX[b & 15]}`;
}

/**
 * Bytes from the guest as the text trace prints them, safe for a terminal: printable UTF-8 stays as
 * it is; a C0 control (0x00–0x1f, newline and tab included), DEL (0x7f), a C1 control (U+0080–U+009F,
 * the bytes `c2 80`–`c2 9f`) and every byte not part of well-formed UTF-8 print as `\xNN`, one per
 * byte; a backslash prints as `\\`, so the escaping reads back unambiguously. ftrace's `%s` writes the
 * bytes raw; a terminal would obey them (`\x1b[2J` clears it), and a newline would forge a trace line.
 *
 * @example
 * escapeTraceBytes(new TextEncoder().encode('a\u001b[2Jé\\'), 0, 9); // 'a\\x1b[2Jé\\\\'
 */
export function escapeTraceBytes(bytes: Uint8Array, start: number, end: number): string {
  let out = '';
  let i = start;
  while (i < end) {
    const b = bytes[i];
    if (b < 0x80) {
      out += b === 0x5c ? '\\\\' : b < 0x20 || b === 0x7f ? hexByte(b) : String.fromCharCode(b);
      i++;
      continue;
    }
    const n = sequenceLength(bytes, i, end);
    if (n === 0 || (n === 2 && b === 0xc2 && bytes[i + 1] <= 0x9f)) {
      // Not UTF-8, or a C1 control: every byte of it escaped.
      const stop = n === 0 ? i + 1 : i + 2;
      for (; i < stop; i++) out += hexByte(bytes[i]);
      continue;
    }
    out += String.fromCodePoint(utf8CodePoint(bytes, i, n));
    i += n;
  }
  return out;
}

/** C0 controls but newline and tab, DEL and the C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text that came from a log or the guest, safe for a terminal: control characters other than newline
 * and tab (C0, DEL, C1: `ESC]0;…`, `ESC[2J`, the one-character CSI U+009B) print as `\xNN`; all else,
 * printable Unicode included, stays as it is.
 *
 * @example
 * escapeControls('\u001b]0;PWNED\u0007'); // '\\x1b]0;PWNED\\x07'
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => hexByte(c.charCodeAt(0)));
}
