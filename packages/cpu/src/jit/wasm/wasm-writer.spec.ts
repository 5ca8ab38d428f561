import { describe, expect, it } from 'vitest';
import { PageArena } from '../../page-arena.js';
import { WASM, type WasmApi } from '../../wasm-api.js';
import { I32, I64, W, WasmBytes, WasmFunction, writeModule } from './wasm-writer.js';

const wasm = WASM as WasmApi;

describe('WasmBytes', () => {
  it('writes LEB128 integers as the binary format says', () => {
    const u = (v: number) => [...new WasmBytes().u32(v).toBytes()];
    expect(u(0)).toEqual([0x00]);
    expect(u(127)).toEqual([0x7f]);
    expect(u(128)).toEqual([0x80, 0x01]);
    expect(u(624485)).toEqual([0xe5, 0x8e, 0x26]);
    expect(u(0xffffffff)).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
    const s = (v: number) => [...new WasmBytes().s32(v).toBytes()];
    expect(s(0)).toEqual([0x00]);
    expect(s(63)).toEqual([0x3f]);
    expect(s(64)).toEqual([0xc0, 0x00]);
    expect(s(-1)).toEqual([0x7f]);
    expect(s(-64)).toEqual([0x40]);
    expect(s(-65)).toEqual([0xbf, 0x7f]);
    expect(s(-123456)).toEqual([0xc0, 0xbb, 0x78]);
    expect(s(-0x80000000)).toEqual([0x80, 0x80, 0x80, 0x80, 0x78]);
    const l = (v: bigint) => [...new WasmBytes().s64(v).toBytes()];
    expect(l(-1n)).toEqual([0x7f]);
    expect(l(0x7fffffffffffffffn)).toEqual([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00]);
    expect(l(-0x8000000000000000n)).toEqual([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f]);
    // Values past 64 bits wrap, as the i64 they stand for.
    expect(l(0xffffffffffffffffn)).toEqual([0x7f]);
  });

  it('grows past its first buffer', () => {
    const b = new WasmBytes();
    for (let k = 0; k < 1000; k++) b.byte(k & 0xff);
    expect(b.length).toBe(1000);
    expect(b.toBytes()[999]).toBe(999 & 0xff);
  });
});

describe('writeModule', () => {
  it('writes a module that V8 compiles and runs: constants, locals, loops, branches, 64-bit arithmetic and shared memory', () => {
    // sum(at, n): the sum of the n 64-bit words at `at` of the memory, plus 2^40 - 3.
    const sum = new WasmFunction([I32, I32], [I64]);
    const acc = sum.local(I64);
    const k = sum.local(I32);
    sum.i64(2n ** 40n - 3n).set(acc);
    sum.open(W.block).open(W.loop);
    sum.get(k).get(1).op(W.i32GeU).br(W.brIf, 1);
    sum.get(acc).get(0).get(k).i32(3).op(W.i32Shl).op(W.i32Add).mem(W.i64Load, 3).op(W.i64Add).set(acc);
    sum.get(k).i32(1).op(W.i32Add).set(k);
    sum.br(W.br, 0);
    sum.op(W.end).op(W.end);
    sum.get(acc);
    // pick(x): br_table over x (0, 1, else) to -1, 200, 0x12345678.
    const pick = new WasmFunction([I32], [I32]);
    pick.open(W.block).open(W.block).open(W.block);
    pick.get(0).brTable([0, 1], 2);
    pick.op(W.end).i32(-1).op(W.return);
    pick.op(W.end).i32(200).op(W.return);
    pick.op(W.end).i32(0x12345678);
    // twice(x): the imported function's result for x, doubled.
    const twice = new WasmFunction([I32], [I32]);
    twice.get(0).call(0).get(0).call(0).op(W.i32Add);
    const bytes = writeModule({
      memory: { module: 'env', name: 'memory', maximum: 65536 },
      imports: [{ module: 'env', name: 'plus1', params: [I32], results: [I32] }],
      functions: [
        { fn: sum, export: 'sum' },
        { fn: pick, export: 'pick' },
        { fn: twice, export: 'twice' },
      ],
    });
    const arena = new PageArena();
    const page = arena.allocate();
    const words = [5n, -7n, 0x7fffffffffffffffn];
    words.forEach((w, i) => {
      page.view.setBigInt64(i * 8, w, true);
    });
    const mod = new wasm.Module(bytes);
    const { exports } = new wasm.Instance(mod, { env: { memory: arena.memory, plus1: (x: number) => x + 1 } });
    expect(page.offset).toBeGreaterThan(0);
    expect((exports.sum as (at: number, n: number) => bigint)(page.offset, 3)).toBe(
      BigInt.asIntN(64, 2n ** 40n - 3n + 5n - 7n + 0x7fffffffffffffffn),
    );
    expect((exports.sum as (at: number, n: number) => bigint)(page.offset, 0)).toBe(2n ** 40n - 3n);
    const p = exports.pick as (x: number) => number;
    expect([p(0), p(1), p(2), p(-5)]).toEqual([-1, 200, 0x12345678, 0x12345678]);
    expect((exports.twice as (x: number) => number)(20)).toBe(42);
  });

  it('writes a module without a memory that calls through an imported table (call_indirect, checked against its type)', () => {
    // Two modules' `f(a, b)`: a - b and a * b, put in a table the third calls through.
    const binary = (op: number) => {
      const f = new WasmFunction([I32, I32], [I32]);
      f.get(0).get(1).op(op);
      return new wasm.Instance(new wasm.Module(writeModule({ imports: [], functions: [{ fn: f, export: 'f' }] })), {})
        .exports.f;
    };
    const table = new wasm.Table({ element: 'anyfunc', initial: 2 });
    table.set(0, binary(W.i32Sub));
    table.set(1, binary(W.i32Mul));
    // at(i, a, b): table[i](a, b); wrong(a): table[0] called as a function of one parameter.
    const at = new WasmFunction([I32, I32, I32], [I32]);
    at.get(1).get(2).get(0).callIndirect(2);
    const wrong = new WasmFunction([I32], [I32]);
    wrong.get(0).i32(0).callIndirect(3);
    const bytes = writeModule({
      table: { module: 'm', name: 't' },
      imports: [],
      functions: [
        { fn: at, export: 'at' },
        { fn: wrong, export: 'wrong' },
      ],
      types: [
        { params: [I32, I32], results: [I32] },
        { params: [I32], results: [I32] },
      ],
    });
    const { exports } = new wasm.Instance(new wasm.Module(bytes), { m: { t: table } });
    const call = exports.at as (i: number, a: number, b: number) => number;
    expect([call(0, 50, 8), call(1, 6, 7)]).toEqual([42, 42]);
    // Past the table's end, and a function of another type: traps, not a wrong call.
    expect(() => call(2, 1, 1)).toThrow(/table index is out of bounds/);
    expect(() => (exports.wrong as (a: number) => number)(1)).toThrow(/signature mismatch/);
    // The table grown and set after the instance was made: the call sees it.
    table.grow(1);
    table.set(2, binary(W.i32Add));
    expect(call(2, 40, 2)).toBe(42);
  });
});
