import { describe, expect, it } from 'vitest';
import { jsonLine } from './json-line.js';

describe(jsonLine, () => {
  it('should escape C0, DEL, C1 and the line separators, and parse back to the same value', () => {
    const value = { s: 'a\u001b]0;PWNED\u0007\u007f\u009b2J\u2028\u2029"\\\n\udcff' };
    const line = jsonLine(value);
    expect(line).toBe('{"s":"a\\u001b]0;PWNED\\u0007\\u007f\\u009b2J\\u2028\\u2029\\"\\\\\\n\\udcff"}\n');
    expect(line.slice(0, -1)).toMatch(/^[\x20-\x7e]*$/);
    expect(JSON.parse(line)).toEqual(value);
  });
});
