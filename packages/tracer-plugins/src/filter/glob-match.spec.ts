import { describe, expect, it } from 'vitest';
import { globMatch } from './glob-match.js';

const enc = new TextEncoder();
const glob = (pattern: string, s: string) => {
  const str = enc.encode(s);
  return globMatch(enc.encode(pattern), str, 0, str.length);
};

describe(globMatch, () => {
  it.each<[string, string, boolean]>([
    ['bash', 'bash', true],
    ['bash', 'bas', false],
    ['*', '', true],
    ['*', 'anything', true],
    ['ba*', 'bash', true],
    ['*sh', 'bash', true],
    ['*as*', 'bash', true],
    ['b*h', 'bash', true],
    ['b*z', 'bash', false],
    ['?ash', 'bash', true],
    ['?ash', 'ash', false],
    ['[ab]ash', 'bash', true],
    ['[!ab]ash', 'bash', false],
    ['[a-c]ash', 'bash', true],
    ['[]]x', ']x', true],
    ['[a-]x', '-x', true],
    ['[abc', '[abc', true],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['*a*a*a', 'aaaa', true],
    ['*a*a*b', 'aaaa', false],
  ])('should match %j against %j as %s', (pattern, s, expected) => {
    expect(glob(pattern, s)).toBe(expected);
  });
});
