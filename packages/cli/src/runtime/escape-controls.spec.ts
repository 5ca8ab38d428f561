import { escapeControls as tracerEscapeControls } from '@int3/tracer-plugins';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeControls } from './escape-controls.js';

describe(escapeControls, () => {
  it('should escape ESC sequences, BEL, DEL and C1 and keep newline, tab and printable text', () => {
    expect(escapeControls('corrupt log: \u001b]0;PWNED\u0007\u001b[2J é\n\tx\u009b\u007f')).toBe(
      'corrupt log: \\x1b]0;PWNED\\x07\\x1b[2J é\n\tx\\x9b\\x7f',
    );
  });

  it("should follow the tracer's rule exactly", () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => escapeControls(s) === tracerEscapeControls(s)));
  });
});
