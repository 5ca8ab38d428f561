import { describe, expect, it } from 'vitest';
import { isIfModifier } from './is-if-modifier.js';
import { h } from './x86-test-bytes.fixture.js';

describe(isIfModifier, () => {
  it.each([
    { bytes: 'fa', asm: 'cli', expected: true },
    { bytes: 'fb', asm: 'sti', expected: true },
    { bytes: '9d', asm: 'popfq', expected: true },
    { bytes: '66 9d', asm: 'popfw', expected: true },
    { bytes: 'cf', asm: 'iretl', expected: true },
    { bytes: '48 cf', asm: 'iretq (REX.W)', expected: true },
    { bytes: '9c', asm: 'pushfq', expected: false },
    { bytes: 'f4', asm: 'hlt', expected: false },
    { bytes: '48 89 e5', asm: 'mov %rsp,%rbp', expected: false },
    { bytes: '0f 01 cb', asm: 'stac', expected: false },
  ])('should say $expected for $asm', ({ bytes, expected }) => {
    expect(isIfModifier(h(bytes))).toBe(expected);
  });
});
