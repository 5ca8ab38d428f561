import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeControls, escapeTraceBytes } from './escape-control.js';

const esc = (bytes: number[]) => escapeTraceBytes(new Uint8Array(bytes), 0, bytes.length);
const utf8 = (s: string) => [...new TextEncoder().encode(s)];

describe(escapeTraceBytes, () => {
  it.each<[string, number[], string]>([
    ['printable ASCII and quotes', utf8('/tmp/a" b'), '/tmp/a" b'],
    ['printable UTF-8', utf8('é€😀'), 'é€😀'],
    ['ESC sequences', utf8('\u001b]0;PWNED\u0007\u001b[2J'), '\\x1b]0;PWNED\\x07\\x1b[2J'],
    ['newline, tab, NUL-free C0 and DEL', utf8('a\nb\tc\u0001\u007f'), 'a\\x0ab\\x09c\\x01\\x7f'],
    ['a C1 control (CSI U+009B)', utf8('\u009b2J'), '\\xc2\\x9b2J'],
    ['a backslash', utf8('a\\x1b'), 'a\\\\x1b'],
    ['invalid UTF-8', [0xa9, 0x61, 0xe2, 0x82], '\\xa9a\\xe2\\x82'],
  ])('should print %s as %j', (_what, bytes, expected) => {
    expect(esc(bytes)).toBe(expected);
  });

  it('should never let a control character through, for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
        expect(escapeTraceBytes(bytes, 0, bytes.length)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      }),
    );
  });
});

describe(escapeControls, () => {
  it('should escape C0 (but newline and tab), DEL and C1, and keep printable text', () => {
    expect(escapeControls('int3: bad \u001b]0;PWNED\u0007 é\n\tx\u009b\u007f')).toBe(
      'int3: bad \\x1b]0;PWNED\\x07 é\n\tx\\x9b\\x7f',
    );
  });
});
