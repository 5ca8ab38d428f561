import { describe, expect, it } from 'vitest';
import { arrayOf, big, boolean, checkEntry, integer, showValue, text } from './log-schema.js';

describe(checkEntry, () => {
  const schema = {
    required: { n: integer(1, 8) },
    optional: { s: text(3), b: boolean, v: big, a: arrayOf(boolean, 1, 2, 'flags') },
  };

  it('should accept an entry whose fields follow their rules', () => {
    expect(checkEntry({ type: 't', n: 3, s: 'abc', b: true, v: 1n, a: [false] }, schema)).toBeUndefined();
  });

  it('should say which field is missing, wrong or unknown, and what it should be', () => {
    expect(checkEntry({ type: 't' }, schema)).toBe("t needs 'n' (an integer from 1 to 8)");
    expect(checkEntry({ type: 't', n: 9 }, schema)).toBe("t 'n' must be an integer from 1 to 8, not 9");
    expect(checkEntry({ type: 't', n: 1, s: 'abcd' }, schema)).toBe(
      `t 's' must be a string of at most 3 characters, not "abcd"`,
    );
    expect(checkEntry({ type: 't', n: 1, a: [] }, schema)).toBe("t 'a' must be an array of 1 to 2 flags, not []");
    expect(checkEntry({ type: 't', n: 1, x: 0 }, schema)).toBe('t has no field "x"');
  });
});

describe(showValue, () => {
  it('should show a value as escaped JSON, cut to 40 characters', () => {
    expect(showValue('\u001b[2J')).toBe('"\\u001b[2J"');
    expect(showValue('x'.repeat(100))).toHaveLength(40);
    expect(showValue(255n)).toBe('{"$big":"ff"}');
  });
});
