import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AddressSpace, Cpu, type CpuContext, PageFlags, type RunResult } from '../src/index.js';
import { MAX_THRESHOLD } from '../src/jit/block-compiler.js';
import { FUZZ_RUNS, seedFor } from '../src/testing/fuzz-settings.js';
import { encodeProgram, LOOP_REG, type Piece, pieceArbitrary, WINDOW_BASE_REG } from './support/jit-fuzz-program.js';

const CODE = 0x400000n;
const DATA = 0x600000n;
const STACK = 0x7fe000n;
const RWX = PageFlags.Present | PageFlags.Writable | PageFlags.User;
/** The bytes around RBX (DATA + 0x800) that memory forms reach (disp8, up to 8 bytes wide). */
const WINDOW_OFFSET = 0x700n;
const WINDOW_SIZE = 0x200;

interface Start {
  readonly regs: readonly bigint[];
  readonly rflags: number;
  readonly window: Uint8Array;
  readonly iterations: number;
}

/**
 * Options of the compiler under test: the default limits, and small regions that chain at every
 * block; with or without its WebAssembly back end.
 */
type JitOptions = { threshold: number; maxBlocks?: number; maxInsns?: number; wasm?: boolean };

/** Iterations added to a case's own (1–5), so that regions are compiled, linked, then chained. */
const CHAIN_ITERATIONS = 12;

function machine(program: Uint8Array, start: Start, jit: JitOptions | false): { cpu: Cpu; as: AddressSpace } {
  const as = new AddressSpace();
  as.map(CODE, 4096, RWX);
  as.write(CODE, program);
  as.map(DATA, 4096, RWX);
  as.write(DATA + WINDOW_OFFSET, start.window);
  as.map(STACK, 8192, RWX);
  const cpu = new Cpu({ addressSpace: as, jit });
  start.regs.forEach((v, r) => {
    cpu.setReg(r as 0, v);
  });
  cpu.setReg(WINDOW_BASE_REG, DATA + 0x800n);
  cpu.setReg(4, STACK + 0x1000n);
  cpu.setReg(LOOP_REG, BigInt(start.iterations));
  cpu.rflags = start.rflags;
  cpu.rip = CODE;
  return { cpu, as };
}

interface Observed {
  readonly result: RunResult;
  readonly context: CpuContext;
  readonly data: string;
  readonly stack: string;
}

function observe(cpu: Cpu, as: AddressSpace, result: RunResult): Observed {
  return {
    result: { ...result },
    context: cpu.saveContext(),
    data: Buffer.from(as.read(DATA, 4096)).toString('hex'),
    stack: Buffer.from(as.read(STACK, 8192)).toString('hex'),
  };
}

const startArbitrary: fc.Arbitrary<Start> = fc.record({
  // Values from a small pool most of the time, so that operands are often equal, zero, or at a
  // sign or carry boundary (where comparisons and flags differ between near-miss formulas).
  regs: fc.array(
    fc.oneof(
      { arbitrary: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), weight: 2 },
      { arbitrary: fc.bigInt({ min: 0n, max: 4n }), weight: 2 },
      {
        arbitrary: fc.constantFrom(
          0x7fn,
          0x80n,
          0xffn,
          0x7fffn,
          0x8000n,
          0x7fffffffn,
          0x80000000n,
          0xffffffffn,
          0x100000000n,
          0x7fffffffffffffffn,
          0x8000000000000000n,
          0xffffffffffffffffn,
          0x600800n,
        ),
        weight: 3,
      },
    ),
    { minLength: 16, maxLength: 16 },
  ),
  rflags: fc.integer({ min: 0, max: 0xfff }).map((f) => (f & 0x8d5) | 2),
  window: fc.uint8Array({ minLength: WINDOW_SIZE, maxLength: WINDOW_SIZE }),
  iterations: fc.integer({ min: 1, max: 5 }),
});

/** Runs the differential property with compiler options `options`; returns what the compiler did. */
function differential(options: JitOptions, name: string, extraIterations = 0) {
  let retired = 0;
  let compiled = 0;
  let chained = 0;
  let regions = 0;
  let wasm = 0;
  fc.assert(
    fc.property(
      fc.array(pieceArbitrary, { minLength: 1, maxLength: 14 }),
      startArbitrary,
      fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }),
      (pieces: Piece[], drawn, budgets) => {
        const start = { ...drawn, iterations: drawn.iterations + extraIterations };
        const program = encodeProgram(pieces);
        const ref = machine(program, start, false);
        const jit = machine(program, start, options);
        for (let step = 0; step < 400; step++) {
          const budget = budgets[step % budgets.length];
          const a = observe(ref.cpu, ref.as, ref.cpu.run(budget));
          const b = observe(jit.cpu, jit.as, jit.cpu.run(budget));
          expect(b).toEqual(a);
          if (a.result.reason !== 'budget') break;
        }
        retired += jit.cpu.retired;
        compiled += jit.cpu.jit?.stats.retired ?? 0;
        chained += jit.cpu.jit?.stats.chained ?? 0;
        regions += jit.cpu.jit?.stats.compiled ?? 0;
        wasm += jit.cpu.jit?.stats.wasm ?? 0;
      },
    ),
    { numRuns: FUZZ_RUNS, seed: seedFor(name) },
  );
  return { retired, compiled, chained, regions, wasm };
}

describe("the interpreter's two dispatches", () => {
  it(
    'should leave everything as the switch does when a CPU with the compiler interprets through its table of handlers',
    () => {
      // A threshold no head reaches here: the compiler's CPU interprets everything, as it does cold code.
      const { retired, compiled } = differential({ threshold: MAX_THRESHOLD }, 'interpreter-handlers');
      expect(compiled).toBe(0);
      expect(retired).toBeGreaterThan(FUZZ_RUNS * 10);
    },
    Math.max(60_000, FUZZ_RUNS * 40),
  );
});

describe("the block compiler's JavaScript back end against the interpreter", () => {
  it(
    'should leave every register, flag, byte, count and fault as the interpreter does, at every budget stop',
    () => {
      const { retired, compiled } = differential({ threshold: 1, wasm: false }, 'jit-differential');
      // The comparison means something only if compiled code ran most of the time.
      expect(compiled / retired).toBeGreaterThan(0.3);
      // A long campaign (INT3_FUZZ_RUNS): about 3 ms a case here, 40 allowed.
    },
    Math.max(60_000, FUZZ_RUNS * 40),
  );

  it(
    'should do the same with one block per region, every region chained into the next',
    () => {
      const { retired, compiled, chained } = differential(
        { threshold: 1, maxBlocks: 1, maxInsns: 6, wasm: false },
        'jit-differential-chained',
        CHAIN_ITERATIONS,
      );
      expect(compiled / retired).toBeGreaterThan(0.2);
      // Regions went straight from one to the next without the run loop, many times.
      expect(chained).toBeGreaterThan(FUZZ_RUNS);
    },
    Math.max(60_000, FUZZ_RUNS * 40),
  );
});

describe("the block compiler's WebAssembly back end against the interpreter", () => {
  it(
    'should leave every register, flag, byte, count and fault as the interpreter does, at every budget stop',
    () => {
      const { retired, compiled, regions, wasm } = differential({ threshold: 1, wasm: true }, 'jit-differential-wasm');
      expect(compiled / retired).toBeGreaterThan(0.3);
      // The regions it takes whole (no instruction it does not write) ran as WebAssembly.
      expect(wasm / regions).toBeGreaterThan(0.1);
    },
    Math.max(60_000, FUZZ_RUNS * 40),
  );

  it(
    'should do the same with one block per region, every region chained into the next',
    () => {
      const { retired, compiled, chained, regions, wasm } = differential(
        { threshold: 1, maxBlocks: 1, maxInsns: 6, wasm: true },
        'jit-differential-wasm-chained',
        CHAIN_ITERATIONS,
      );
      expect(compiled / retired).toBeGreaterThan(0.2);
      expect(chained).toBeGreaterThan(FUZZ_RUNS);
      expect(wasm / regions).toBeGreaterThan(0.3);
    },
    Math.max(60_000, FUZZ_RUNS * 40),
  );
});
