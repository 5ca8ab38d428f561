/** Characters JSON.stringify leaves raw that a terminal or a JavaScript parser may act on. */
const UNSAFE = /[\u007f-\u009f\u2028\u2029]/g;

/**
 * One JSON Lines line (`JSON.stringify` and a newline) that is safe to print anywhere: besides the
 * control characters JSON itself escapes (U+0000..U+001F), DEL and the C1 controls (U+007F..U+009F,
 * which include the one-byte CSI U+009B) and the line separators U+2028/U+2029 are written as `\uXXXX`
 * escapes, so no byte of guest data reaches a terminal raw. Lone surrogates come out as `\udcXX`
 * (well-formed JSON.stringify, ES2019).
 *
 * @see https://www.rfc-editor.org/rfc/rfc8259#section-7 (any character may be escaped)
 * @example
 * jsonLine({ s: 'a\u009bb' }); // '{"s":"a\\u009bb"}\n'
 */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}
