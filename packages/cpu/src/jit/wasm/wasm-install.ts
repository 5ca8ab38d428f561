import { imulOverflow } from '../../imul-overflow.js';
import { PAGE_ARENA } from '../../page-arena.js';
import { WASM } from '../../wasm-api.js';
import type { RegionFunction } from '../jit-region.js';
import type { RegionPlan } from '../region-plan.js';
import { WasmRegionEmitter, type WasmRun, X_FLAGS, X_RETIRED, X_RIP_HI, X_RIP_LO } from './wasm-region.js';

/** What a region compiled to WebAssembly reads and sets of the CPU around its run (CpuState, CpuCore). */
interface WasmCpu {
  readonly exchange: Int32Array;
  readonly regsOffset: number;
  readonly rTlbOffset: number;
  readonly wTlbOffset: number;
  lop: number;
  lsz: number;
  ldl: number;
  ldh: number;
  lsl: number;
  lsh: number;
  lrl: number;
  lrh: number;
  lcf: number;
  lof: number;
  flags: number;
  ripLo: number;
  ripHi: number;
  retiredCount: number;
  virtualCount: number;
  costMask: number;
}

/**
 * The RegionFunction of a region compiled to WebAssembly: the lazy-flag record and RFLAGS put in
 * the exchange area when it reads them, the module's `run` (which reads and writes the registers in
 * place), then the record (when a writer set it), RIP and the counts taken back, as a region compiled
 * to JavaScript leaves them.
 */
function regionFunction(run: WasmRun, readsFlags: boolean): RegionFunction {
  return (c: unknown, rem: number, _region: unknown, _insns: unknown, block: number): number => {
    const cpu = c as WasmCpu;
    const x = cpu.exchange;
    if (readsFlags) {
      x[0] = cpu.lop;
      x[1] = cpu.lsz;
      x[2] = cpu.ldl;
      x[3] = cpu.ldh;
      x[4] = cpu.lsl;
      x[5] = cpu.lsh;
      x[6] = cpu.lrl;
      x[7] = cpu.lrh;
      x[8] = cpu.lcf;
      x[9] = cpu.lof;
      x[X_FLAGS] = cpu.flags;
    }
    const exit = run(rem, block, cpu.regsOffset, cpu.rTlbOffset, cpu.wTlbOffset);
    // A kind of -1: no writer ran, the record is the CPU's still.
    if (x[0] !== -1) {
      cpu.lop = x[0];
      cpu.lsz = x[1];
      cpu.ldl = x[2];
      cpu.ldh = x[3];
      cpu.lsl = x[4];
      cpu.lsh = x[5];
      cpu.lrl = x[6];
      cpu.lrh = x[7];
      cpu.lcf = x[8];
      cpu.lof = x[9];
    }
    cpu.ripLo = x[X_RIP_LO];
    cpu.ripHi = x[X_RIP_HI];
    const retired = x[X_RETIRED];
    cpu.retiredCount += retired;
    cpu.virtualCount += retired * cpu.costMask;
    return exit;
  };
}

/** A region compiled to WebAssembly, as BlockCompiler.install keeps a factory's result. */
export interface WasmCompiled {
  readonly fn: RegionFunction;
  readonly exits: number;
  readonly entries: number[];
  readonly needs: number[];
  readonly wasm: true;
}

/**
 * Most modules compiled in one process (or worker). V8 keeps a little of every instance over a
 * shared memory for good (measured on Node 20: RSS grows about 1 MB per 1,000 instances made and
 * dropped, with 512 live), so past this many, regions are compiled to JavaScript: at most some 32 MB
 * lost, where code rewritten or evicted without end would otherwise grow without bound.
 */
export const MAX_WASM_MODULES = 32_768;
let modules = 0;

/**
 * Compiles `plan` to a WebAssembly module over the page arena's memory and instantiates it (one
 * instance serves every CPU: its state comes in as offsets), or null where there is no arena memory
 * or {@link MAX_WASM_MODULES} have been compiled.
 * `new WebAssembly.Module` compiles lazily: V8's baseline compiler (Liftoff) compiles `run` at its
 * first call, in well under a millisecond, and its optimizing one later, in the background, once it
 * is hot.
 */
export function compileWasmRegion(plan: RegionPlan, extra: ReadonlySet<number>): WasmCompiled | null {
  const memory = PAGE_ARENA.memory;
  if (memory === null || WASM === null || modules >= MAX_WASM_MODULES) return null;
  modules++;
  const code = new WasmRegionEmitter(plan, extra).generate();
  const instance = new WASM.Instance(new WASM.Module(code.bytes), { m: { memory, imulOverflow } });
  return {
    fn: regionFunction(instance.exports.run as WasmRun, code.readsFlags),
    exits: code.exits,
    entries: code.entries,
    needs: code.needs,
    wasm: true,
  };
}
