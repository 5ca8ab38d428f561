import { describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import { MAX_BUF_SIZE, parseCallArgument, parseCount } from './parse-call-argument.js';

function usageError(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    if (error instanceof CliError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe(parseCallArgument, () => {
  it.each([
    ['0', 0n],
    ['42', 42n],
    ['+7', 7n],
    ['0x10', 16n],
    ['0XfF', 255n],
    ['18446744073709551615', 0xffff_ffff_ffff_ffffn],
    ['-1', 0xffff_ffff_ffff_ffffn],
    ['-100', 0xffff_ffff_ffff_ff9cn],
    ['-9223372036854775808', 0x8000_0000_0000_0000n],
    ['-0x10', 0xffff_ffff_ffff_fff0n],
  ])('should read %s as the 64-bit value %s', (text, value) => {
    expect(parseCallArgument(text)).toEqual({ kind: 'int', value });
  });

  it('should read str:TEXT as text, keeping colons and spaces', () => {
    expect(parseCallArgument('str:a: b')).toEqual({ kind: 'str', text: 'a: b' });
    expect(parseCallArgument('str:')).toEqual({ kind: 'str', text: '' });
  });

  it('should read buf:N in decimal or hex', () => {
    expect(parseCallArgument('buf:64')).toEqual({ kind: 'buf', size: 64 });
    expect(parseCallArgument('buf:0x100')).toEqual({ kind: 'buf', size: 256 });
  });

  it.each([
    ['zz', "bad argument 'zz': expected a decimal or 0x hex integer, str:TEXT or buf:N"],
    ['1.5', "bad argument '1.5'"],
    ['0x', "bad argument '0x'"],
    ['18446744073709551616', 'does not fit in 64 bits'],
    ['-9223372036854775809', 'does not fit in 64 bits'],
    ['buf:', 'buf:N needs a byte count N'],
    ['buf:-1', 'buf:N needs a byte count N'],
    [`buf:${MAX_BUF_SIZE + 1}`, `limited to ${MAX_BUF_SIZE} bytes`],
  ])('should refuse %s with a usage error', (text, message) => {
    const error = usageError(() => parseCallArgument(text));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(message);
  });
});

describe(parseCount, () => {
  it('should read decimal, hex and 1eN counts', () => {
    expect(parseCount('1000', '--max-insns')).toBe(1000);
    expect(parseCount('0x10', '--max-insns')).toBe(16);
    expect(parseCount('1e9', '--max-insns')).toBe(1_000_000_000);
  });

  it.each(['0', '-5', 'lots', '1e20'])('should refuse %s', (text) => {
    expect(usageError(() => parseCount(text, '--max-insns')).message).toContain(`bad --max-insns '${text}'`);
  });
});
