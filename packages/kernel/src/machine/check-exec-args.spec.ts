import { describe, expect, it } from 'vitest';
import { KernelError } from '../kernel-error.js';
import { ARG_MAX, checkExecArgs } from './check-exec-args.js';

function refusal(argv: readonly string[]): string | undefined {
  try {
    checkExecArgs(argv);
    return undefined;
  } catch (error) {
    if (error instanceof KernelError) return error.code;
    throw error;
  }
}

describe(checkExecArgs, () => {
  it('should take an argv whose strings and pointers fit a quarter of the user stack', () => {
    expect(refusal(['cat', '/etc/motd'])).toBeUndefined();
    // 'cat' + NUL, pointers for argv[0..1], its NULL and envp's NULL: exactly ARG_MAX.
    const fill = ARG_MAX - 4 - 4 * 8 - 1;
    expect(refusal(['cat', 'x'.repeat(fill)])).toBeUndefined();
    expect(refusal(['cat', 'x'.repeat(fill + 1)])).toBe('E2BIG');
  });

  it('should refuse a 1 MB argument and 10,000 arguments with E2BIG', () => {
    expect(refusal(['cat', 'x'.repeat(1 << 20)])).toBe('E2BIG');
    expect(refusal(['cat', ...Array(10_000).fill('a')])).toBe('E2BIG');
  });

  it('should count bytes, not UTF-16 units', () => {
    const euro = '€'.repeat(Math.floor(ARG_MAX / 3));
    expect(euro.length).toBeLessThan(ARG_MAX);
    expect(refusal(['cat', euro])).toBe('E2BIG');
  });
});
