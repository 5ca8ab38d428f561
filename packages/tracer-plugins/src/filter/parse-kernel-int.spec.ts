import { describe, expect, it } from 'vitest';
import { parseKernelInt } from './parse-kernel-int.js';

describe(parseKernelInt, () => {
  it.each<[string, boolean, bigint | undefined]>([
    ['42', false, 42n],
    ['0x2A', false, 42n],
    ['052', false, 42n],
    ['0', false, 0n],
    ['-42', true, -42n],
    ['-42', false, undefined],
    ['08', false, undefined],
    ['0x', false, undefined],
    ['12ab', false, undefined],
    ['18446744073709551615', false, 18446744073709551615n],
    ['18446744073709551616', false, undefined],
    ['9223372036854775807', true, 9223372036854775807n],
    ['9223372036854775808', true, undefined],
    ['-9223372036854775808', true, -9223372036854775808n],
  ])('should parse %j (signed %s) as %s', (text, signed, expected) => {
    expect(parseKernelInt(text, signed)).toBe(expected);
  });
});
