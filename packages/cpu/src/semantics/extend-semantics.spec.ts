import { describe, expect, it } from 'vitest';
import { Op } from '../op.js';
import { widen } from './extend-semantics.js';

const VALUES = [0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, 0x12345678];

describe(widen, () => {
  it('should zero- or sign-extend a 1/2/4/8-byte source to 64 bits as BigInt does', () => {
    for (const op of [Op.Movzx, Op.Movsx])
      for (const size2 of op === Op.Movzx ? [1, 2, 8] : [1, 2, 4])
        for (const a of VALUES)
          for (const b of [0, -1, 0x1234]) {
            const bits = size2 * 8;
            const src = (BigInt(b >>> 0) << 32n) | BigInt(a >>> 0);
            const v = BigInt.asUintN(bits, src);
            const want = BigInt.asUintN(64, op === Op.Movsx ? BigInt.asIntN(bits, v) : v);
            const x = widen(op, size2, 'v', 'vh');
            const f = new Function('v0', 'vh', `let v = v0; ${x.lines.join('\n')} return [${x.lo}, ${x.hi}];`);
            const [lo, hi] = f(Number(v & 0xffffffffn) | 0, Number(v >> 32n) | 0);
            expect(BigInt.asUintN(64, (BigInt(hi) << 32n) | BigInt(lo >>> 0))).toBe(want);
          }
  });
});
