/**
 * Sanity of the host side of the corpus differential tests: the generated dispatcher, the protocol and
 * buffer handling must work on their own, or every corpus comparison would be meaningless.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corpusCallArbitrary } from '../src/testing/corpus-arbitrary.js';
import { CORPUS_FUNCTIONS } from '../src/testing/corpus-manifest.js';
import { buildNativeCallRunner } from './support/corpus-builds.js';
import { runNativeCalls } from './support/run-native.js';

const index = (name: string) => CORPUS_FUNCTIONS.findIndex((f) => f.name === name);
const u32s = (values: number[]) => new Uint8Array(Uint32Array.from(values).buffer);

describe(runNativeCalls, () => {
  it('should return results and updated buffers for a batch in order', () => {
    const runner = buildNativeCallRunner();
    const [sorted, crc, div] = runNativeCalls(runner, [
      {
        fn: index('sort_insertion_u32'),
        args: [0n, 3n, 0n, 0n, 0n, 0n],
        buffers: [{ slot: 0, bytes: u32s([3, 1, 2]) }],
      },
      {
        fn: index('hash_crc32'),
        args: [0n, 9n, 0n, 0n, 0n, 0n],
        buffers: [{ slot: 0, bytes: Buffer.from('123456789') }],
      },
      { fn: index('div_s64'), args: [BigInt.asUintN(64, -7n), 2n, 0n, 0n, 0n, 0n], buffers: [] },
    ]);
    expect(sorted.buffers).toEqual([Buffer.from(u32s([1, 2, 3])).toString('hex')]);
    expect(crc.lo).toBe(0xcbf43926n); // the CRC-32 check value
    expect(div.lo).toBe(BigInt.asUintN(64, -3n)); // C truncates toward zero, sign-extended to 64 bits
  });

  it('should agree between the bitwise and the table-driven CRC-32 of the corpus', () => {
    const bitwise = index('hash_crc32');
    const calls = fc.sample(corpusCallArbitrary(CORPUS_FUNCTIONS, bitwise), { numRuns: 50, seed: 1 });
    const a = runNativeCalls(buildNativeCallRunner(), calls);
    const b = runNativeCalls(
      buildNativeCallRunner(),
      calls.map((c) => ({ ...c, fn: index('hash_crc32_nibble') })),
    );
    expect(a.map((r) => r.lo)).toEqual(b.map((r) => r.lo));
  });
});
