import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CpuState } from '../cpu-state.js';
import { imulOverflow } from '../imul-overflow.js';
import { condExpr, type FlagRecord } from '../jit/flag-record.js';
import { LazyOp, msb, PARITY } from '../lazy-flags.js';
import { cfOf, type FlagStage, ofOf, pfOf, sfOf, zfOf } from './flag-semantics.js';

const KINDS = Object.values(LazyOp).filter((k) => k !== LazyOp.None);
const NAMES = ['dl', 'dh', 'sl', 'sh', 'rl', 'rh', 'cf', 'of'] as const;

interface Fields {
  size: number;
  dl: number;
  dh: number;
  sl: number;
  sh: number;
  rl: number;
  rh: number;
  cf: number;
  of: number;
}

/** A record as the instructions of `kind` write it at `size` bytes (operands zero-extended below 8). */
function record(kind: number, size: number, a: bigint, b: bigint, r: bigint, cin: number, of: number): Fields {
  const bits = BigInt(size * 8);
  const fit = (v: bigint) => BigInt.asUintN(Number(bits), v);
  const d = fit(a);
  const s = kind === LazyOp.Inc || kind === LazyOp.Dec ? 1n : fit(b);
  const c = kind === LazyOp.Add || kind === LazyOp.Sub || kind === LazyOp.Inc || kind === LazyOp.Dec ? cin : 0;
  let res: bigint;
  if (kind === LazyOp.Add) res = d + s + BigInt(c);
  else if (kind === LazyOp.Sub) res = d - s - BigInt(c);
  else if (kind === LazyOp.Inc) res = d + 1n;
  else if (kind === LazyOp.Dec) res = d - 1n;
  else if (kind === LazyOp.Imul) res = d * s;
  else res = r;
  // 32-bit values are held as int32 (as the registers are), 8/16-bit ones zero-extended.
  const lo = (v: bigint) => (size === 4 || size === 8 ? Number(BigInt.asIntN(32, v)) : Number(v & 0xffffn));
  const hi = (v: bigint) => (size === 8 ? Number(BigInt.asIntN(32, v >> 32n)) : 0);
  const rr = fit(res);
  return { size, dl: lo(d), dh: hi(d), sl: lo(s), sh: hi(s), rl: lo(rr), rh: hi(rr), cf: c, of };
}

function state(kind: number, f: Fields): CpuState {
  const s = new CpuState();
  s.lop = kind;
  s.lsz = f.size;
  s.ldl = f.dl;
  s.ldh = f.dh;
  s.lsl = f.sl;
  s.lsh = f.sh;
  s.lrl = f.rl;
  s.lrh = f.rh;
  s.lcf = f.cf;
  s.lof = f.of;
  return s;
}

/** The compiler's view of the record: the fields as names, a carry in of 0 as the literal it is there. */
function compiled(kind: number, f: Fields): FlagRecord {
  return {
    kind,
    size: f.size,
    dl: 'dl',
    dh: 'dh',
    sl: 'sl',
    sh: 'sh',
    rl: 'rl',
    rh: 'rh',
    cf: f.cf === 0 ? '0' : 'cf',
    of: 'of',
  };
}

function evaluate(expr: string, f: Fields): unknown {
  return new Function('IO', 'P', 'msb', ...NAMES, `return ${expr};`)(
    imulOverflow,
    PARITY,
    msb,
    ...NAMES.map((n) => f[n]),
  );
}

const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const edge = fc.constantFrom(
  0n,
  1n,
  0x7fn,
  0x80n,
  0xffn,
  0x7fffn,
  0x8000n,
  0xffffn,
  0x7fffffffn,
  0x80000000n,
  0xffffffffn,
  (1n << 63n) - 1n,
  1n << 63n,
  (1n << 64n) - 1n,
);
const operand = fc.oneof(u64, edge);

describe('flag-semantics', () => {
  it("should give the compiler's conditions (known kind and size) as CpuState.cond gives them (run-time kind and size)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KINDS),
        fc.constantFrom(1, 2, 4, 8),
        operand,
        operand,
        operand,
        fc.constantFrom(0, 1),
        fc.constantFrom(0, 1),
        (kind, size, a, b, r, cin, of) => {
          const f = record(kind, size, a, b, r, cin, of);
          const cpu = state(kind, f);
          // The compiler's be/a/le/g join with `|` (a 0/1 number; generated code only tests it), the
          // rest are booleans: compared as 0/1, and nothing else may come out.
          for (let cc = 0; cc < 16; cc++) {
            const got = evaluate(condExpr(compiled(kind, f), cc), f);
            expect([true, false, 0, 1]).toContain(got);
            expect([cc, Number(got)]).toEqual([cc, Number(cpu.cond(cc))]);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("should give each flag of a known kind and size as CpuState's generated getter does", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...KINDS),
        fc.constantFrom(1, 2, 4, 8),
        operand,
        operand,
        operand,
        fc.constantFrom(0, 1),
        fc.constantFrom(0, 1),
        (kind, size, a, b, r, cin, of) => {
          const f = record(kind, size, a, b, r, cin, of);
          const cpu = state(kind, f);
          const s: FlagStage = { ...compiled(kind, f), imul: 'IO', parity: 'P', msb: 'msb' };
          expect([
            evaluate(cfOf(kind, s), f),
            evaluate(zfOf(s), f),
            evaluate(sfOf(s), f),
            evaluate(ofOf(kind, s), f),
            evaluate(pfOf(s), f),
          ]).toEqual([cpu.getCF(), cpu.getZF(), cpu.getSF(), cpu.getOF(), cpu.getPF()]);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('should give the flags of an add and a sub as BigInt arithmetic does', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(LazyOp.Add, LazyOp.Sub),
        fc.constantFrom(1, 2, 4, 8),
        operand,
        operand,
        fc.constantFrom(0, 1),
        (kind, size, a, b, cin) => {
          const f = record(kind, size, a, b, 0n, cin, 0);
          const cpu = state(kind, f);
          const n = BigInt(size * 8);
          const d = BigInt.asUintN(Number(n), a);
          const s = BigInt.asUintN(Number(n), b);
          const wide = kind === LazyOp.Add ? d + s + BigInt(cin) : d - s - BigInt(cin);
          const res = BigInt.asUintN(Number(n), wide);
          const signed = (v: bigint) => BigInt.asIntN(Number(n), v);
          const exact = kind === LazyOp.Add ? signed(d) + signed(s) + BigInt(cin) : signed(d) - signed(s) - BigInt(cin);
          expect([cpu.getCF(), cpu.getZF(), cpu.getOF(), cpu.getSF()]).toEqual([
            wide < 0n || wide >> n !== 0n ? 1 : 0,
            res === 0n ? 1 : 0,
            signed(res) !== exact ? 1 : 0,
            Number(res >> (n - 1n)),
          ]);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
