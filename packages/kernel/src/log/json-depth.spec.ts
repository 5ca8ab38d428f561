import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from './json-depth.js';

describe(jsonDepthExceeds, () => {
  it('should count nested arrays and objects, not brackets inside strings', () => {
    expect(jsonDepthExceeds('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonDepthExceeds('{"a":"[[[[[[\\"[[[["}', 1)).toBe(false);
  });

  it('should answer for a nesting that would overflow a recursive parser, without recursing', () => {
    expect(jsonDepthExceeds('['.repeat(1_000_000), 32)).toBe(true);
  });
});
