import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CpuState } from '../cpu-state.js';
import { cmovNotTaken, type RegStage, regRead, regWrite } from './reg-semantics.js';

const half = fc.oneof(fc.integer({ min: -0x80000000, max: 0x7fffffff }), fc.constantFrom(0, -1, 0xff, 0xffff));
const file = fc.array(half, { minLength: 16, maxLength: 16 });
const ARRAYS: RegStage = { lo: (r) => `R[${r}]`, hi: (r) => `H[${r}]` };
const big = (l: number, h: number) => BigInt.asUintN(64, (BigInt(h) << 32n) | BigInt(l >>> 0));

/** A register number valid at `size` bytes (AH..BH only at 1). */
const operand = fc
  .constantFrom(8, 4, 2, 1)
  .chain((size) => fc.tuple(fc.constant(size), fc.integer({ min: 0, max: size === 1 ? 19 : 15 })));

describe(regRead, () => {
  it('should read what CpuState.getR reads and what the SDM says the register holds, at a known register and size', () => {
    fc.assert(
      fc.property(operand, file, file, ([size, r], R, H) => {
        const s = new CpuState();
        s.R.set(R);
        s.H.set(H);
        const x = regRead(size, r, ARRAYS);
        const got = new Function('R', 'H', `return [${x.lo}, ${x.hi}];`)(R, H);
        const lo = s.getR(r, size);
        expect(got).toEqual([lo, s.vh]);
        const full = r >= 16 ? big(R[r - 16], H[r - 16]) >> 8n : big(R[r], H[r]);
        expect(big(got[0], got[1])).toBe(full & ((1n << BigInt(size * 8)) - 1n));
      }),
      { numRuns: 2000 },
    );
  });
});

describe(regWrite, () => {
  it('should write what CpuState.setR writes (32-bit zero-extends, 8/16-bit merge, AH..BH bits 8..15)', () => {
    fc.assert(
      fc.property(operand, file, file, half, half, ([size, r], R, H, lo, hi) => {
        const s = new CpuState();
        s.R.set(R);
        s.H.set(H);
        s.setR(r, size, lo, hi);
        const R2 = Int32Array.from(R);
        const H2 = Int32Array.from(H);
        new Function('R', 'H', 'lo', 'hi', regWrite(size, r, 'lo', 'hi', ARRAYS).join('\n'))(R2, H2, lo, hi);
        expect([[...R2], [...H2]]).toEqual([[...s.R], [...s.H]]);
        const q = r >= 16 ? r - 16 : r;
        const was = big(R[q], H[q]);
        const v = BigInt.asUintN(size * 8, big(lo, hi));
        const want =
          size === 8
            ? v
            : size === 4
              ? v
              : r >= 16
                ? (was & ~0xff00n) | (v << 8n)
                : (was & ~((1n << BigInt(size * 8)) - 1n)) | v;
        expect(big(R2[q], H2[q])).toBe(want);
      }),
      { numRuns: 2000 },
    );
  });
});

describe(cmovNotTaken, () => {
  it('should zero the upper half of a 32-bit destination only, known or run-time size', () => {
    for (const size of [2, 4, 8]) {
      const known = new Function('R', 'H', 'size', cmovNotTaken(size, 3, ARRAYS).join('\n'));
      const runtime = new Function('R', 'H', 'size', cmovNotTaken('size', 3, ARRAYS).join('\n'));
      for (const f of [known, runtime]) {
        const R = new Int32Array(16).fill(-1);
        const H = new Int32Array(16).fill(-1);
        f(R, H, size);
        expect([R[3], H[3], H[2]]).toEqual([-1, size === 4 ? 0 : -1, -1]);
      }
    }
  });
});
