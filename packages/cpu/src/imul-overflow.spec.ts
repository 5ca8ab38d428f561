import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { imulOverflow, umulHigh32 } from './imul-overflow.js';

/** Small by default; INT3_FUZZ=<runs> for a longer campaign. */
const RUNS = Number(process.env.INT3_FUZZ ?? 300);

const u32 = fc.oneof(
  fc.bigInt({ min: 0n, max: 0xffffffffn }),
  fc.constantFrom(0n, 1n, 0xffffffffn, 0x80000000n, 0x7fffffffn, 0xffff0001n, 0x10000n),
);
const u64 = fc.oneof(
  fc.tuple(u32, u32).map(([h, l]) => (h << 32n) | l),
  fc.bigInt({ min: -0x300000n, max: 0x300000n }).map((v) => BigInt.asUintN(64, v)),
  fc.constantFrom(0n, 1n, (1n << 64n) - 1n, 1n << 63n, (1n << 63n) - 1n, 0xffffffffn, 1n << 32n),
);
const i32 = (v: bigint) => Number(BigInt.asIntN(32, v));

describe(umulHigh32, () => {
  it('should return the high half of the unsigned 64-bit product', () => {
    fc.assert(
      fc.property(u32, u32, (a, b) => {
        expect(umulHigh32(i32(a), i32(b))).toBe(i32((a * b) >> 32n));
      }),
      { numRuns: RUNS },
    );
  });
});

describe(imulOverflow, () => {
  it('should flag a 64-bit signed product that does not fit in 64 bits', () => {
    fc.assert(
      fc.property(u64, u64, (a, b) => {
        const p = BigInt.asIntN(64, a) * BigInt.asIntN(64, b);
        const fits = p === BigInt.asIntN(64, p);
        expect(imulOverflow(8, i32(a), i32(a >> 32n), i32(b), i32(b >> 32n))).toBe(fits ? 0 : 1);
      }),
      { numRuns: RUNS },
    );
  });

  it('should flag 32- and 16-bit signed products that do not fit', () => {
    fc.assert(
      fc.property(u32, u32, (a, b) => {
        const p32 = BigInt.asIntN(32, a) * BigInt.asIntN(32, b);
        expect(imulOverflow(4, i32(a), 0, i32(b), 0)).toBe(p32 === BigInt.asIntN(32, p32) ? 0 : 1);
        const a16 = a & 0xffffn;
        const b16 = b & 0xffffn;
        const p16 = BigInt.asIntN(16, a16) * BigInt.asIntN(16, b16);
        expect(imulOverflow(2, Number(a16), 0, Number(b16), 0)).toBe(p16 === BigInt.asIntN(16, p16) ? 0 : 1);
      }),
      { numRuns: RUNS },
    );
  });
});
