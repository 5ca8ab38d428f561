import { imulOverflow } from '../../imul-overflow.js';
import { PAGE_ARENA } from '../../page-arena.js';
import { WASM, type WasmApi, type WasmTable } from '../../wasm-api.js';
import type { RegionFunction } from '../jit-region.js';
import type { RegionPlan } from '../region-plan.js';
import { type WasmRun, X_FLAGS, X_RETIRED, X_RIP_HI, X_RIP_LO } from './wasm-layout.js';
import { WasmRegionEmitter } from './wasm-region.js';
import { I32, WasmFunction, writeModule } from './wasm-writer.js';

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

/** `run(slot, rem, block, regs, rtlb, wtlb)`: the `run` of the region module in table slot `slot`. */
type Dispatch = (slot: number, rem: number, block: number, regs: number, rtlb: number, wtlb: number) => number;

/**
 * The `run` functions of the cached region modules in one table, and one exported function that calls
 * the one in a given slot (`call_indirect`). A call from JavaScript into WebAssembly is cheap only
 * where V8 sees one callee and inlines its JS-to-WebAssembly wrapper: into a different module's `run`
 * at every region entry it costs 19-22 ns a call (measured, Node 20: a loop calling four modules'
 * functions in turn), into the dispatcher 6-7 ns, the call_indirect included.
 */
class RunTable {
  private readonly table: WasmTable;
  private readonly free: number[] = [];
  private used = 0;
  readonly dispatch: Dispatch;

  constructor(wasm: WasmApi) {
    this.table = new wasm.Table({ element: 'anyfunc', initial: 256 });
    // dispatch(slot, ...run's five): run's arguments, then the slot, through type 1 (after the
    // module's one function's): run's signature (WasmRun).
    const fn = new WasmFunction([I32, I32, I32, I32, I32, I32], [I32]);
    fn.get(1).get(2).get(3).get(4).get(5).get(0).callIndirect(1);
    const bytes = writeModule({
      table: { module: 'm', name: 'runs' },
      imports: [],
      functions: [{ fn, export: 'dispatch' }],
      types: [{ params: [I32, I32, I32, I32, I32], results: [I32] }],
    });
    const instance = new wasm.Instance(new wasm.Module(bytes), { m: { runs: this.table } });
    this.dispatch = instance.exports.dispatch as Dispatch;
  }

  /** Puts `run` in a free slot; returns the slot. */
  add(run: WasmRun): number {
    let slot = this.free.pop();
    if (slot === undefined) {
      if (this.used === this.table.length) this.table.grow(this.table.length);
      slot = this.used++;
    }
    this.table.set(slot, run);
    return slot;
  }

  /** Frees `slot` (and the table's reference to its module). */
  remove(slot: number): void {
    this.table.set(slot, null);
    this.free.push(slot);
  }
}
let runTable: RunTable | null = null;

/** Where a region's `run` is in the RunTable: its slot, or -1 once its module left the cache. */
interface RunHome {
  slot: number;
}

/**
 * The RegionFunction of a region compiled to WebAssembly: the lazy-flag record and RFLAGS put in
 * the exchange area when it reads them, the module's `run` (which reads and writes the registers in
 * place) through the dispatcher while it is in the table (else directly), then the record (when a
 * writer set it), RIP and the counts taken back, as a region compiled to JavaScript leaves them.
 */
function regionFunction(run: WasmRun, readsFlags: boolean, home: RunHome, dispatch: Dispatch): RegionFunction {
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
    const slot = home.slot;
    const exit =
      slot >= 0
        ? dispatch(slot, rem, block, cpu.regsOffset, cpu.rTlbOffset, cpu.wTlbOffset)
        : run(rem, block, cpu.regsOffset, cpu.rTlbOffset, cpu.wTlbOffset);
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
  /**
   * Called when the cache drops it: its `run` leaves the dispatcher's table (regions still running it
   * call it directly, at the cost of a call V8 does not inline).
   */
  release(): void;
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
  const run = instance.exports.run as WasmRun;
  if (runTable === null) runTable = new RunTable(WASM);
  const table = runTable;
  const home: RunHome = { slot: table.add(run) };
  return {
    fn: regionFunction(run, code.readsFlags, home, table.dispatch),
    exits: code.exits,
    entries: code.entries,
    needs: code.needs,
    wasm: true,
    release: () => {
      if (home.slot < 0) return;
      table.remove(home.slot);
      home.slot = -1;
    },
  };
}
