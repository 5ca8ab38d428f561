import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { msb } from '../lazy-flags.js';
import { Op } from '../op.js';
import {
  type AluStage,
  aluResult,
  borrowOut,
  carryOut,
  imulResult,
  incDecResult,
  negResult,
  notResult,
  umulHighText,
} from './alu-semantics.js';
import { shiftImm32Result, shiftImm64Result, shiftNarrowResult } from './shift-semantics.js';

const HALF = [0, 1, -1, 0x7fffffff, -0x80000000, 0x12345678, -2, 0xff, 0xffff];

/** Runs generated statements on 64-bit operands given as halves and returns [rl, rh]. */
function run(lines: string[], d: [number, number], s: [number, number], cin = 0): [number, number] {
  const f = new Function('dl', 'dh', 'sl', 'sh', 'c', `let rl = 0, rh = 0; ${lines.join('\n')} return [rl, rh];`);
  return f(d[0], d[1], s[0], s[1], cin);
}

function stage(w: boolean | string, cin = '0'): AluStage {
  return { w, mask: null, dl: 'dl', dh: 'dh', sl: 'sl', sh: 'sh', cin, rl: 'rl', rh: 'rh', t: 't', decl: '' };
}

const big = (l: number, h: number) => (BigInt(h) << 32n) | BigInt(l >>> 0);
const halves = (v: bigint): [number, number] => [Number(BigInt.asIntN(32, v)), Number(BigInt.asIntN(32, v >> 32n))];

describe(aluResult, () => {
  it('should compute 64-bit add, adc, sub, sbb and the logic ops as BigInt does, known or run-time width', () => {
    const ops: [number, (a: bigint, b: bigint, c: bigint) => bigint][] = [
      [Op.Add, (a, b) => a + b],
      [Op.Adc, (a, b, c) => a + b + c],
      [Op.Sub, (a, b) => a - b],
      [Op.Sbb, (a, b, c) => a - b - c],
      [Op.Or, (a, b) => a | b],
      [Op.Xor, (a, b) => a ^ b],
      [Op.And, (a, b) => a & b],
    ];
    for (const [op, ref] of ops) {
      for (const w of [true, 'w'] as const) {
        const lines = aluResult(op, stage(w, op === Op.Adc || op === Op.Sbb ? 'c' : '0'));
        const code = w === 'w' ? ['const w = true;', ...lines] : lines;
        for (const a of HALF)
          for (const b of HALF)
            for (const c of [0, 1]) {
              const cin = op === Op.Adc || op === Op.Sbb ? c : 0;
              const want = halves(BigInt.asUintN(64, ref(big(a, b), big(b, a), BigInt(cin))));
              expect(run(code, [a, b], [b, a], cin)).toEqual(want);
            }
      }
    }
  });

  it('should wrap 8/16/32-bit results and leave the high half unassigned at a known narrow width', () => {
    const s8: AluStage = { ...stage(false), mask: '0xff' };
    expect(run(aluResult(Op.Add, s8), [0xff, 0], [1, 0])).toEqual([0, 0]);
    expect(run(aluResult(Op.Sub, s8), [0, 0], [1, 0])).toEqual([0xff, 0]);
    expect(run(aluResult(Op.Add, stage(false)), [-1, 7], [1, 7])).toEqual([0, 0]);
    expect(run(['const w = false;', ...aluResult(Op.Sub, stage('w'))], [0, 0], [1, 0])).toEqual([-1, 0]);
  });
});

describe(negResult, () => {
  it('should negate 64-bit values (0 stays 0, the carry crosses halves)', () => {
    for (const a of HALF)
      for (const b of HALF) {
        const want = halves(BigInt.asUintN(64, -big(a, b)));
        expect(run(negResult(stage(true)), [a, b], [0, 0])).toEqual(want);
      }
  });
});

const u32 = fc.oneof(
  fc.integer({ min: 0, max: 0xffffffff }),
  fc.constantFrom(0, 1, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff),
);

describe(umulHighText, () => {
  it('should give the high half of the unsigned 32x32-bit product', () => {
    const f = new Function('a', 'b', `return ${umulHighText('a', 'b')} | 0;`);
    fc.assert(
      fc.property(u32, u32, (a, b) => {
        expect(f(a | 0, b | 0)).toBe(Number(BigInt.asIntN(32, (BigInt(a) * BigInt(b)) >> 32n)));
      }),
    );
  });
});

describe(imulResult, () => {
  const imul = (w: boolean | string) =>
    imulResult({ w, al: 'dl', ah: 'dh', bl: 'sl', bh: 'sh', rl: 'rl', rh: 'rh', decl: '' });

  it('should give the low 64 bits of the product at 64 bits, known or run-time width', () => {
    fc.assert(
      fc.property(u32, u32, u32, u32, (a0, a1, b0, b1) => {
        const a = big(a0, a1);
        const b = big(b0, b1);
        const want = halves(BigInt.asUintN(64, a * b));
        expect(run(imul(true), [a0 | 0, a1 | 0], [b0 | 0, b1 | 0])).toEqual(want);
        expect(run(['const w = true;', ...imul('w')], [a0 | 0, a1 | 0], [b0 | 0, b1 | 0])).toEqual(want);
      }),
    );
  });

  it('should give the low 32 bits and a zero high half at 32 bits', () => {
    fc.assert(
      fc.property(u32, u32, (a, b) => {
        const want = Number(BigInt.asIntN(32, BigInt(a) * BigInt(b)));
        expect(run(imul(false), [a | 0, 7], [b | 0, 9])).toEqual([want, 0]);
        expect(run(['const w = false;', ...imul('w')], [a | 0, 7], [b | 0, 9])).toEqual([want, 0]);
      }),
    );
  });
});

describe(shiftImm32Result, () => {
  it('should give the same result, CF and OF for a known and a run-time count and kind', () => {
    for (const cc of [4, 5, 7])
      for (let n = 1; n < 32; n++)
        for (const l of HALF) {
          const s = { l: 'l', rl: 'rl', cf: 'cf', of: 'of', decl: '' };
          const body = (lines: string[]) =>
            new Function('l', 'n', 'cc', `let rl = 0, cf = 0, of = 0; ${lines.join('\n')} return [rl, cf, of];`);
          const known = body(shiftImm32Result(cc, n, s))(l, n, cc);
          expect(body(shiftImm32Result('cc', 'n', s))(l, n, cc)).toEqual(known);
          const u = l >>> 0;
          const want = cc === 4 ? (u << n) | 0 : cc === 5 ? (u >>> n) | 0 : l >> n;
          expect(known[0]).toBe(want);
          expect(known[1]).toBe(cc === 4 ? (u >>> (32 - n)) & 1 : (u >>> (n - 1)) & 1);
        }
  });
});

describe(shiftImm64Result, () => {
  it('should shift 64-bit values as BigInt does (CF the last bit out), for a known and a run-time count', () => {
    const s = { l: 'l', h: 'h', rl: 'rl', rh: 'rh', cf: 'cf', of: 'of', decl: '' };
    const body = (lines: string[]) =>
      new Function(
        'l',
        'h',
        'n',
        'cc',
        `let rl = 0, rh = 0, cf = 0, of = 0; ${lines.join('\n')} return [rl, rh, cf, of];`,
      );
    const runtime = body(shiftImm64Result('cc', 'n', s));
    for (const cc of [4, 5, 7])
      for (let n = 1; n < 64; n++)
        for (const a of HALF)
          for (const b of HALF) {
            const v = BigInt.asUintN(64, big(a, b));
            const got = body(shiftImm64Result(cc, n, s))(a, b, n, cc);
            expect(runtime(a, b, n, cc)).toEqual(got);
            const sv = BigInt.asIntN(64, v);
            const r = cc === 4 ? v << BigInt(n) : cc === 5 ? v >> BigInt(n) : sv >> BigInt(n);
            const out = cc === 4 ? (v >> BigInt(64 - n)) & 1n : ((cc === 7 ? sv : v) >> BigInt(n - 1)) & 1n;
            expect(got.slice(0, 3)).toEqual([...halves(BigInt.asUintN(64, r)), Number(out)]);
          }
  });
});

describe(incDecResult, () => {
  it('should add or subtract 1 as BigInt does at 64 bits and wrap at 8/16/32', () => {
    for (const op of [Op.Inc, Op.Dec]) {
      const d = op === Op.Inc ? 1n : -1n;
      const wide = incDecResult(op, { w: true, mask: null, dl: 'dl', dh: 'dh', rl: 'rl', rh: 'rh', decl: '' });
      for (const a of HALF)
        for (const b of HALF) expect(run(wide, [a, b], [0, 0])).toEqual(halves(BigInt.asUintN(64, big(a, b) + d)));
      for (const [size, mask] of [
        [1, '0xff'],
        [2, '0xffff'],
        [4, null],
      ] as const) {
        const lines = incDecResult(op, { w: false, mask, dl: 'dl', dh: 'dh', rl: 'rl', rh: 'rh', decl: '' });
        for (const a of HALF) {
          const v = BigInt.asUintN(size * 8, BigInt(a) + d);
          const want = size === 4 ? Number(BigInt.asIntN(32, v)) : Number(v);
          expect(run(lines, [size === 4 ? a : a & Number(mask), 0], [0, 0])).toEqual([want, 0]);
        }
      }
    }
  });
});

describe(notResult, () => {
  it('should complement both halves at 64 bits and the masked value below', () => {
    const f = (x: { lo: string; hi: string }) => [`rl = ${x.lo};`, `rh = ${x.hi};`];
    for (const a of HALF)
      for (const b of HALF) {
        expect(run(f(notResult({ w: true, mask: null, dl: 'dl', dh: 'dh' })), [a, b], [0, 0])).toEqual(
          halves(BigInt.asUintN(64, ~big(a, b))),
        );
        expect(run(f(notResult({ w: false, mask: '0xff', dl: 'dl', dh: 'dh' })), [a & 0xff, 0], [0, 0])).toEqual([
          ~a & 0xff,
          0,
        ]);
      }
  });
});

describe(shiftNarrowResult, () => {
  it('should shift 8/16-bit values as BigInt does for every count the 5-bit mask lets through', () => {
    const s = { size: 'size', l: 'l', mask: 'mask', sext: 'v', rl: 'rl', cf: 'cf', of: 'of', decl: '' };
    for (const cc of [4, 5, 7]) {
      const f = new Function(
        'msb',
        'l',
        'n',
        'size',
        `const mask = size === 1 ? 0xff : 0xffff; const v = size === 1 ? (l << 24) >> 24 : (l << 16) >> 16;
        let rl = 0, cf = 0, of = 0; ${shiftNarrowResult(cc, 'n', s).join('\n')} return [rl, cf, of];`,
      );
      for (const size of [1, 2])
        for (const a of [...HALF, 0x80, 0x8000, 0x7f, 0x55aa])
          for (let n = 1; n < 32; n++) {
            const bits = BigInt(size * 8);
            const v = BigInt(a) & ((1n << bits) - 1n);
            const sv = BigInt.asIntN(Number(bits), v);
            const r = cc === 4 ? v << BigInt(n) : cc === 5 ? v >> BigInt(n) : sv >> BigInt(n);
            const out = cc === 4 ? (v << BigInt(n)) >> bits : ((cc === 7 ? sv : v) >> BigInt(n - 1)) & 1n;
            const rl = Number(BigInt.asUintN(Number(bits), r));
            const cf = Number(out & 1n);
            // OF by the count-1 formula: shl MSB(result) ^ CF, shr the operand's MSB, sar 0.
            const of = cc === 4 ? msb(rl, 0, size) ^ cf : cc === 5 ? Number((v >> (bits - 1n)) & 1n) : 0;
            expect([size, n, ...f(msb, Number(v), n, size)]).toEqual([size, n, rl, cf, of]);
          }
    }
  });
});

describe(carryOut, () => {
  it('should give the carry out of a 32-bit add and the borrow out of a 32-bit sub, for every pair', () => {
    const carry = new Function('a', 'b', `const r = (a + b) | 0; return ${carryOut('a', 'b', 'r')};`);
    const borrow = new Function('a', 'b', `const r = (a - b) | 0; return ${borrowOut('a', 'b', 'r')};`);
    const int = fc.oneof(fc.integer({ min: -0x80000000, max: 0x7fffffff }), fc.constantFrom(...HALF));
    fc.assert(
      fc.property(int, int, (a, b) => {
        expect(carry(a, b)).toBe((a >>> 0) + (b >>> 0) > 0xffffffff ? 1 : 0);
        expect(borrow(a, b)).toBe(a >>> 0 < b >>> 0 ? 1 : 0);
      }),
      { numRuns: 5000 },
    );
  });
});
