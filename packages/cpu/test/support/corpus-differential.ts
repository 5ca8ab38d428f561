import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { corpusCallArbitrary } from '../../src/testing/corpus-arbitrary.js';
import {
  type CorpusCall,
  type CorpusResult,
  describeCall,
  normaliseReturn,
  toHex,
} from '../../src/testing/corpus-call.js';
import { CORPUS_FUNCTIONS } from '../../src/testing/corpus-manifest.js';
import { FUZZ_RUNS, seedFor } from '../../src/testing/fuzz-settings.js';
import { buildCorpusImage, buildNativeCallRunner } from './corpus-builds.js';
import { GuestImage } from './guest-image.js';
import type { OptLevel } from './kernel-flags.js';
import { runNativeCalls } from './run-native.js';

function emulatorResult(image: GuestImage, call: CorpusCall): CorpusResult {
  const f = CORPUS_FUNCTIONS[call.fn];
  const r = image.call(f.name, call.args, call.buffers);
  return { ...normaliseReturn(f.returns, r.rax, r.rdx), buffers: r.buffers.map(toHex) };
}

function show(r: CorpusResult): string {
  return `lo=0x${r.lo.toString(16)} hi=0x${r.hi.toString(16)} buffers=[${r.buffers.join(', ')}]`;
}

/**
 * Declares the function-level differential suite at one optimisation level: every corpus function,
 * FUZZ_RUNS generated calls each, run natively (one runner process for the whole batch) and in the
 * emulator on the gcc-built kernel-style image; return values and buffers must match bit for bit.
 */
export function describeCorpusDifferential(opt: OptLevel): void {
  const calls = CORPUS_FUNCTIONS.map((f, i) =>
    fc.sample(corpusCallArbitrary(CORPUS_FUNCTIONS, i), { numRuns: FUZZ_RUNS, seed: seedFor(f.name) }),
  );
  // Both engines: the compiler's CPU (cold code through the interpreter's table of handlers) and the
  // interpreter alone (its switch).
  let images: { readonly name: string; readonly image: GuestImage }[];
  let expected: CorpusResult[][];

  beforeAll(() => {
    const path = buildCorpusImage(opt);
    images = [
      { name: 'with the compiler', image: GuestImage.fromFile(path) },
      { name: 'the interpreter alone', image: GuestImage.fromFile(path, false) },
    ];
    const flat = runNativeCalls(buildNativeCallRunner(), calls.flat());
    expected = calls.map((list) => flat.splice(0, list.length));
  });

  CORPUS_FUNCTIONS.forEach((f, i) => {
    describe(f.name, () => {
      it(`should match the host at ${opt} for ${FUZZ_RUNS} generated calls`, () => {
        for (let k = 0; k < calls[i].length; k++) {
          const call = calls[i][k];
          const want = expected[i][k];
          for (const { name, image } of images) {
            let got: CorpusResult;
            try {
              got = emulatorResult(image, call);
            } catch (error) {
              throw new Error(`${describeCall(f, call)} at ${opt}, ${name}: ${(error as Error).message}`);
            }
            if (got.lo !== want.lo || got.hi !== want.hi || got.buffers.join() !== want.buffers.join()) {
              expect.fail(
                `${describeCall(f, call)} at ${opt}, ${name}:\n  host:     ${show(want)}\n  emulator: ${show(got)}`,
              );
            }
          }
        }
      });
    });
  });
}
