import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RegStage } from './reg-semantics.js';
import { commitRsp, leaveRsp, poppedRsp, pushedRsp } from './stack-semantics.js';

const ARRAYS: RegStage = { lo: (r) => `R[${r}]`, hi: (r) => `H[${r}]` };
const big = (l: number, h: number) => BigInt.asUintN(64, (BigInt(h) << 32n) | BigInt(l >>> 0));
/** A 64-bit register as int32 halves, with the carry and borrow edges likely. */
const reg = fc.oneof(
  fc.tuple(fc.integer({ min: -0x80000000, max: 0x7fffffff }), fc.integer({ min: -0x80000000, max: 0x7fffffff })),
  fc.tuple(
    fc.constantFrom(0, 1, 2, 4, 7, -1, -2, -4, -8, -9, 0x7ffffff8, -0x80000000),
    fc.constantFrom(0, -1, 1, 0x7fffffff),
  ),
);
const size = fc.constantFrom(2, 4, 8, 10, 0x10008);

/** Runs `lines` over RSP = `sp`, RBP = `bp` (as R[4], R[5]) and gives the registers after. */
function run(lines: string[], sp: [number, number], bp: [number, number]): { R: Int32Array; H: Int32Array } {
  const R = new Int32Array(16);
  const H = new Int32Array(16);
  [R[4], H[4]] = sp;
  [R[5], H[5]] = bp;
  new Function('R', 'H', lines.join('\n'))(R, H);
  return { R, H };
}

describe('stack-semantics', () => {
  it('should move RSP down by n with the borrow into its high half on a push, only at commit', () => {
    fc.assert(
      fc.property(reg, size, fc.boolean(), (sp, n, known) => {
        const m = known ? n : 'n';
        const lines = [`const n = ${n};`, ...pushedRsp(m, ARRAYS, 'l', 'h', 'const ')];
        const before = run([...lines, 'R[0] = l;', 'H[0] = h;'], sp, [0, 0]);
        expect([before.R[4], before.H[4]]).toEqual(sp);
        expect(big(before.R[0], before.H[0])).toBe(BigInt.asUintN(64, big(sp[0], sp[1]) - BigInt(n)));
        const after = run([...lines, ...commitRsp(ARRAYS, 'l', 'h')], sp, [0, 0]);
        expect(big(after.R[4], after.H[4])).toBe(BigInt.asUintN(64, big(sp[0], sp[1]) - BigInt(n)));
      }),
      { numRuns: 2000 },
    );
  });

  it('should move RSP up by n with the carry into its high half on a pop', () => {
    fc.assert(
      fc.property(reg, size, (sp, n) => {
        const { R, H } = run(poppedRsp(n, ARRAYS, 't'), sp, [0, 0]);
        expect(big(R[4], H[4])).toBe(BigInt.asUintN(64, big(sp[0], sp[1]) + BigInt(n)));
      }),
      { numRuns: 2000 },
    );
  });

  it("should set leave's RSP to RBP + n and leave RBP for the pop", () => {
    fc.assert(
      fc.property(reg, reg, fc.constantFrom(2, 8), (sp, bp, n) => {
        const { R, H } = run(leaveRsp(n, ARRAYS, 't'), sp, bp);
        expect(big(R[4], H[4])).toBe(BigInt.asUintN(64, big(bp[0], bp[1]) + BigInt(n)));
        expect([R[5], H[5]]).toEqual(bp);
      }),
      { numRuns: 2000 },
    );
  });
});
