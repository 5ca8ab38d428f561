export type { JitStats } from './jit-stats.js';

import { execExchange } from '../exec-alu.js';
import { execBitScan, execBitTest } from '../exec-bits.js';
import { execFlow } from '../exec-flow.js';
import { execDiv, execImul2, execMul } from '../exec-muldiv.js';
import { execDoubleShift, execShift } from '../exec-shift.js';
import { execString } from '../exec-string.js';
import { imulOverflow } from '../imul-overflow.js';
import type { Insn } from '../insn.js';
import { PARITY } from '../lazy-flags.js';
import type { Page } from '../page.js';
import { isCompilable } from './compilable.js';
import { type ForeignRanges, JitRegion, NEVER, PageJit, RegionEntry, type RegionFunction } from './jit-region.js';
import type { JitStats } from './jit-stats.js';
import { type ChainCpu, type GateHook, RegionChain, runGate } from './region-chain.js';
import {
  BlockEnd,
  type ForeignPages,
  type PlannedBlock,
  planRegion,
  type RegionLimits,
  type RegionPlan,
} from './region-plan.js';
import { NO_ENTRIES, RegionEmitter } from './region-source.js';
import { compileWasmRegion } from './wasm/wasm-install.js';
import { wasmTakes } from './wasm/wasm-takes.js';

/** The interpreter's executors the generated code calls (one source of truth for those ops). */
const EXECUTORS = {
  execShift,
  execDoubleShift,
  execMul,
  execImul2,
  execDiv,
  execExchange,
  execBitScan,
  execBitTest,
  execString,
  execFlow,
};

const NOT_COMPILABLE: RegionFunction = () => -1;

/**
 * The fault a call from compiled code caught (the region writes its state back, then rethrows it).
 * One box for all regions: a fault is rethrown before any other compiled code runs.
 */
const FAULT_BOX: { f: unknown } = { f: null };

/**
 * What compiled code calls on the CPU that may fault, catching its fault into FAULT_BOX (a memory
 * access the inline TLB does not serve is no call: the region leaves before it, see RegionSource).
 */
interface FaultingCpu {
  execFlags(i: Insn): number;
}

/** Runs an executor; true when it faulted. */
function execute(fn: (c: never, i: Insn) => void, cpu: unknown, i: Insn): boolean {
  try {
    fn(cpu as never, i);
    return false;
  } catch (e) {
    FAULT_BOX.f = e;
    return true;
  }
}

/** Runs CpuSystem.execFlags (the flag instructions compiled code takes); true when it faulted. */
function executeFlags(cpu: FaultingCpu, i: Insn): boolean {
  try {
    cpu.execFlags(i);
    return false;
  } catch (e) {
    FAULT_BOX.f = e;
    return true;
  }
}

/** What a region's gate reads of the CPU: the host's hook, and the compiler's counters. */
interface GateCpu extends ChainCpu {
  readonly gateHook: GateHook<GateCpu> | null;
  readonly jit: { readonly stats: JitStats };
}

/** Runs a gate inside a region (see runGate): 0 go on at RIP, 1 the run exits there, 2 handled. */
function regionGate(cpu: GateCpu, gate: Insn): number {
  return runGate(cpu, gate, cpu.gateHook, cpu.jit.stats);
}

/**
 * A region's factory (what `new Function` made of its source): called once per source, and the
 * function it returns serves every region compiled from that source (the region and its
 * instructions are arguments), so V8's work on it — feedback, optimized code — carries over to the
 * same code on a new machine or a forked child's copy of a page.
 */
type RegionFactory = (
  t: Int32Array,
  p: Uint8Array,
  io: typeof imulOverflow,
  x: typeof EXECUTORS,
  f: typeof FAULT_BOX,
  xe: typeof execute,
  xf: typeof executeFlags,
  xg: typeof regionGate,
) => RegionFunction;

/** A compiled region's function, its count of static exits, its entry blocks and the budget each needs. */
interface Compiled {
  readonly fn: RegionFunction;
  readonly exits: number;
  readonly entries: number[];
  readonly needs: number[];
  /** Compiled to WebAssembly. */
  readonly wasm: boolean;
  /** What to let go of when the cache drops it (a WebAssembly module's table slot, see WasmCompiled). */
  release?(): void;
}

/**
 * Region functions by {@link regionKey}, least recently used first (shared by all CPUs: the key
 * says everything the source depends on), with their count of static exits, the blocks they can
 * be entered at and the budget each of those needs.
 */
const FACTORIES = new Map<string, Compiled>();

/**
 * What a region's source depends on: its pages' addresses, its blocks' pages and bounds (and which
 * are gates), their bytes and costs, and the blocks made entries besides those its code makes anyway.
 */
function regionKey(plan: RegionPlan, extra: ReadonlySet<number>): string {
  let key = plan.pages.map((p) => `${p.hi}:${p.lo}`).join(',');
  if (extra.size > 0) key += `+${[...extra].sort((a, b) => a - b).join(',')}`;
  for (const b of plan.blocks) {
    const data = plan.pages[b.page].page.data;
    key += `|${b.page}/${b.start}-${b.next}${b.end === BlockEnd.Gate ? 'g' : ':'}`;
    for (const i of b.insns) key += i.cost;
    for (let o = b.start; o < b.next; o++) key += String.fromCharCode(data[o]);
  }
  return key;
}
const MAX_FACTORIES = 2048;
/**
 * Regions compiled to WebAssembly (BlockCompilerOptions.wasm) by {@link regionKey}, as FACTORIES
 * holds those compiled to JavaScript (a plan the WebAssembly back end takes on one CPU may go to
 * JavaScript on another, whose state is not in the page arena).
 */
const WASM_FACTORIES = new Map<string, Compiled>();
const MAX_WASM_FACTORIES = 2048;
/**
 * Most characters of a region's source before it is compiled as two. V8 never optimizes a function
 * whose bytecode passes its --max-optimized-bytecode-size (60 KiB): such a region ran unoptimized
 * for good, at 5-6 MIPS where the interpreter runs 55 (a loop of 130 loads and adds, 78 KB of
 * source; 125 of them, 75 KB, ran at 289). Source is not bytecode, so the cap is about half that,
 * for code that compiles to more bytecode per character; the corpus's biggest region is 35 KB.
 */
export const MAX_REGION_SOURCE = 40_000;

/** The highest threshold (BlockCompilerOptions.threshold): the heat table counts in 16 bits. */
export const MAX_THRESHOLD = 65535;

/** Regions killed by writes after which a page is no longer compiled (code rewritten in a loop). */
const KILL_LIMIT = 64;

/** Options of the block compiler. */
export interface BlockCompilerOptions {
  /** Most compiled regions kept (the oldest is dropped first); default 4096. */
  readonly maxRegions?: number;
  /**
   * Times a block head is reached before it is compiled (at most 65,535); default 1,024. Code run a
   * few hundred times is not worth compiling: V8 runs a new region function unoptimized (Ignition,
   * Sparkplug) until it has run a good many times, several times slower than the interpreter's
   * optimized loop (about 10 against 40 MIPS here), and a forked child's or a fresh machine's copy of
   * code is compiled again (from the cached source, see FACTORIES). At 64, `fork 20` in the kernel
   * bench compiled 18 regions per run of 40,884 instructions, ran them 521 times, and was slower
   * than the interpreter; at 1,024 it compiles none, while a hot loop is compiled a few thousand
   * instructions later.
   */
  readonly threshold?: number;
  /** Most basic blocks in one region; default 48. */
  readonly maxBlocks?: number;
  /** Most instructions in one region; default 512. */
  readonly maxInsns?: number;
  /**
   * Inner entries (see RegionEntry.block) the run loop reaches with no compiled code run in between
   * (the interpreter runs a loop of a region's own) before the region is compiled again with them
   * as entries; default 64.
   */
  readonly innerThreshold?: number;
  /**
   * Compiles the regions the WebAssembly back end takes (jit/wasm/wasm-region.ts: one page, no
   * gate, the integer moves, ALU ops and branches of compiled C) to WebAssembly, the others to
   * JavaScript; default true. V8 compiles WebAssembly in about a millisecond (Liftoff), where its
   * optimizing compiler takes 50-100 ms on a region's JavaScript, which meanwhile runs slower than
   * the interpreter. Needs the page arena's memory (page-arena.ts); without it, everything is
   * compiled to JavaScript.
   */
  readonly wasm?: boolean;
}

/**
 * Compiles hot code: a region of basic blocks of one page, reached from one entry, becomes one
 * function, a WebAssembly module's where its back end takes the region (see wasmTakes) and the CPU's
 * state is in the page arena, else JavaScript's (`new Function`; no Node API, so it runs in the
 * browser too), entered there and at every block its code has as a case (see RegionSource.entries),
 * so code reached from several places is compiled once rather than once per place. Regions live on their page (a write
 * to their bytes kills them, see {@link PageJit}) and in a bounded ring: the oldest is dropped when
 * it is full.
 */
export class BlockCompiler {
  readonly threshold: number;
  readonly innerThreshold: number;
  /** Whether regions the WebAssembly back end takes are compiled to WebAssembly (see BlockCompilerOptions.wasm). */
  readonly wasm: boolean;
  /** Inner entries reached since the run loop last ran compiled code (it zeroes this then). */
  innerRun = 0;
  /** Times each block head (hashed by address) was reached without a region. */
  // Annotated: an inferred `Uint16Array<ArrayBuffer>` in the .d.ts would need TypeScript >= 5.7.
  readonly heat: Uint16Array = new Uint16Array(4096);
  private readonly limits: RegionLimits;
  private readonly ring: (JitRegion | null)[];
  private pos = 0;
  readonly stats: JitStats = {
    compiled: 0,
    blocks: 0,
    generated: 0,
    wasm: 0,
    refused: 0,
    inner: 0,
    widened: 0,
    compileMs: 0,
    entries: 0,
    chained: 0,
    exits: 0,
    gates: 0,
    traps: 0,
    steps: 0,
    retired: 0,
    evicted: 0,
  };
  /** Runs compiled regions one after another (see {@link RegionChain}). */
  readonly chain: RegionChain;

  /**
   * `arenaState`: whether the CPU's registers and TLBs are in the page arena's memory (CpuState.regsOffset,
   * CpuCore.rTlbOffset/wTlbOffset), where WebAssembly reaches them.
   */
  constructor(options: BlockCompilerOptions = {}, arenaState = false) {
    this.wasm = (options.wasm ?? true) && arenaState;
    this.threshold = Math.max(1, Math.min(MAX_THRESHOLD, options.threshold ?? 1024));
    this.innerThreshold = Math.max(1, options.innerThreshold ?? 64);
    this.limits = { maxBlocks: Math.max(1, options.maxBlocks ?? 48), maxInsns: Math.max(1, options.maxInsns ?? 512) };
    this.ring = new Array<JitRegion | null>(Math.max(1, options.maxRegions ?? 4096)).fill(null);
    this.chain = new RegionChain(this.stats);
  }

  /** The page's compiled-code table, created on first use. */
  pageJit(page: Page): PageJit {
    let pj = page.jit as PageJit | null;
    if (pj === null) {
      pj = new PageJit();
      page.jit = pj;
    }
    return pj;
  }

  /**
   * Compiles the region entered at `offset` of `page` (at `pageHi:pageLo`) from its decoded code;
   * where a block of a live region holds that offset (a block its code cannot start at, or the
   * middle of one: the loop got there after the region left early, at a TLB miss or the end of its
   * budget, or after an instruction the interpreter runs out of line), gives that region an inner
   * entry there instead: the interpreter runs on to the region's next entry, which costs a few
   * instructions, where a new region overlapping it would cost V8 the same code's compile again.
   * `foreign` tells where the fetch TLB maps other pages (a region may follow a direct jump there).
   */
  compile(
    page: Page,
    pj: PageJit,
    pageLo: number,
    pageHi: number,
    offset: number,
    foreign: ForeignPages | null = null,
  ): void {
    if (pj.kills < KILL_LIMIT) {
      const host = pj.regionWithBlock(offset);
      if (host !== null) {
        pj.addInner(host, offset);
        this.stats.inner++;
        return;
      }
    }
    this.build(page, pj, pageLo, pageHi, offset, NO_ENTRIES, foreign);
  }

  /**
   * The run loop reached inner entry `e` of `page` (see {@link compile}). Reached after the region
   * left early, the interpreter runs a block or two to the region's next entry: that costs little
   * however often it happens. When `innerThreshold` inner entries are reached with no compiled code
   * run in between, the interpreter is running a loop of a region's own (a block that jumps to
   * itself): `e`'s region is compiled again from its first entry, with its inner entries at block
   * starts made entries its code can start at, and replaces the old one.
   */
  reached(page: Page, e: RegionEntry, pageLo: number, pageHi: number, foreign: ForeignPages | null = null): void {
    if (++this.innerRun < this.innerThreshold) return;
    this.innerRun = 0;
    const host = e.region;
    if (host.dead) return;
    // Its inner entries at the start of a block (one in the middle of a block, after an instruction
    // the interpreter runs out of line, leads to the block's end, then to another block).
    const extra = new Set<number>();
    const g = host.ranges;
    for (const x of host.entries) {
      if (x.block >= 0) continue;
      for (let k = 0; k < g.length; k += 2) if (g[k] === x.entry) extra.add(x.entry);
    }
    if (extra.size === 0) return;
    this.stats.widened++;
    this.build(page, host.owner, pageLo, pageHi, host.entries[0].entry, extra, foreign);
  }

  /** Compiles the region entered at `offset`, with the blocks at `extra` as entries too. */
  private build(
    page: Page,
    pj: PageJit,
    pageLo: number,
    pageHi: number,
    offset: number,
    extra: ReadonlySet<number>,
    foreign: ForeignPages | null,
  ): void {
    const code = page.code;
    const first = code?.[offset] ?? null;
    if (code === null || first === null) return;
    if (first.op === 1 /* Op.Gate */) {
      // A gate heads a region of its own: the chain runs the host's hook there (see RegionChain).
      this.keep(pj, marker(pj, offset, 1, 1, first));
      return;
    }
    if (first.op === 72 /* Op.Int3 */) {
      // So does an int3 (a probe's breakpoint): the chain retires it and offers its #BP to the host
      // in place (RegionChain, Cpu.int3InPlace), so a probe hit need not leave compiled code.
      this.keep(pj, marker(pj, offset, 1, 1, first));
      return;
    }
    const t0 = now();
    const home = { lo: pageLo, hi: pageHi, page };
    // Nor does a region follow a jump onto a page rewritten over and over (the region would die with
    // each rewrite, and be compiled again).
    const far: ForeignPages | null =
      foreign === null
        ? null
        : {
            fetchedPage: (lo, hi) => {
              const p = foreign.fetchedPage(lo, hi);
              return p === null || ((p.jit as PageJit | null)?.kills ?? 0) >= KILL_LIMIT ? null : p;
            },
          };
    const found = pj.kills >= KILL_LIMIT ? null : planRegion(home, offset, isCompilable, this.limits, far);
    const plan = found !== null && worthCompiling(found) ? found : null;
    if (plan === null) {
      this.stats.refused++;
      this.keep(pj, marker(pj, offset, first.len, NEVER, null));
      return;
    }
    this.install(pj, plan, extra);
    this.stats.compileMs += now() - t0;
  }

  /**
   * Compiles `plan` into a region of `pj`'s page, with the blocks at `extra` as entries too, or into
   * two when its source is too big for V8 ever to optimize (see MAX_REGION_SOURCE): its blocks split
   * in plan order, each half entered wherever the other jumps into it, so they chain.
   */
  private install(pj: PageJit, plan: RegionPlan, extra: ReadonlySet<number>): void {
    // Byte ranges per page, the region's own first.
    const ranges: number[][] = plan.pages.map(() => []);
    for (const b of plan.blocks) ranges[b.page].push(b.start, b.next);
    // The same instructions at the same address (a forked child's copy of a page, a new machine's
    // kernel text) give the same source: its factory is reused, and with it what V8 compiled and
    // learnt; the key (address, block bounds, bytes, costs) is cheaper to build than the source.
    const wasm = this.wasm && wasmTakes(plan);
    const key = regionKey(plan, extra);
    // Regions compiled to WebAssembly have a cache of their own (a module and its instance cost V8
    // about 50 KB, against a few for a factory of JavaScript source).
    const cache = wasm ? WASM_FACTORIES : FACTORIES;
    let cached = cache.get(key);
    const compiled = cached === undefined && wasm ? compileWasmRegion(plan, extra) : null;
    if (compiled !== null) {
      cached = compiled;
      if (cache.size >= MAX_WASM_FACTORIES) {
        const oldest = cache.keys().next().value as string;
        cache.get(oldest)?.release?.();
        cache.delete(oldest);
      }
      this.stats.generated++;
    } else if (cached === undefined) {
      const src = new RegionEmitter(plan, extra).generate();
      if (src.body.length > MAX_REGION_SOURCE && plan.blocks.length > 1 && plan.pages.length === 1) {
        for (const half of halves(plan, extra)) this.install(pj, half.plan, half.extra);
        return;
      }
      const factory = new Function('T', 'P', 'IO', 'X', 'F', 'XE', 'XF', 'XG', src.body) as RegionFactory;
      const fn = factory(src.table, PARITY, imulOverflow, EXECUTORS, FAULT_BOX, execute, executeFlags, regionGate);
      cached = { fn, exits: src.exits, entries: src.entries, needs: src.needs, wasm: false };
      if (cache.size >= MAX_FACTORIES) cache.delete(cache.keys().next().value as string);
      this.stats.generated++;
    } else cache.delete(key);
    cache.set(key, cached);
    // The generated code numbers the instructions block by block, in plan order.
    const insns: Insn[] = [];
    for (const b of plan.blocks) for (const i of b.insns) insns.push(i);
    const foreignRanges: ForeignRanges[] = [];
    for (let q = 1; q < plan.pages.length; q++)
      foreignRanges.push({ pj: this.pageJit(plan.pages[q].page), ranges: Int32Array.from(ranges[q]) });
    const pages = plan.pages.map((p) => p.page);
    const region = new JitRegion(
      pj,
      cached.fn,
      Int32Array.from(ranges[0]),
      cached.exits,
      insns,
      null,
      pages,
      foreignRanges,
    );
    // Entered where it was compiled, and at its other entry blocks where no other region is.
    cached.entries.forEach((j, n) => {
      region.entries.push(new RegionEntry(region, plan.blocks[j].start, cached.needs[n], j));
    });
    this.keep(pj, region);
    this.stats.compiled++;
    if (cached.wasm) this.stats.wasm++;
    this.stats.blocks += plan.blocks.length;
  }

  /** Installs a region, dropping the oldest one when the ring is full. */
  private keep(pj: PageJit, region: JitRegion): void {
    const old = this.ring[this.pos];
    if (old !== null && !old.dead) {
      old.owner.kill(old);
      this.stats.evicted++;
    }
    this.ring[this.pos] = region;
    this.pos = (this.pos + 1) % this.ring.length;
    pj.add(region);
  }

  /** Regions compiled and not dropped since. */
  liveRegions(): number {
    let n = 0;
    for (const r of this.ring) if (r !== null && !r.dead) n++;
    return n;
  }

  /** Drops every compiled region (the CPU option was turned off, or a test wants a cold start). */
  clear(): void {
    for (let k = 0; k < this.ring.length; k++) {
      const r = this.ring[k];
      if (r !== null && !r.dead) r.owner.kill(r);
      this.ring[k] = null;
    }
  }
}

/** Instructions below which a region that stops at an instruction the compiler does not take is left to the interpreter. */
const MIN_REGION_INSNS = 4;

/**
 * Whether a region pays for its entry and exit (registers loaded and written back): a few
 * straight-line instructions that fall into one the compiler does not take (the interpreter runs
 * next anyway) run faster interpreted. Any other short region is worth it: it loops inside itself, or
 * it leaves by exits the chain links to the next region (a branch, a ret, the way into a gate), so a
 * short region between two others (a `jmp` to a probe's detour, the detour's copied instructions,
 * the rest of the probed function) keeps execution in compiled code.
 */
function worthCompiling(plan: RegionPlan): boolean {
  let total = 0;
  for (const b of plan.blocks) total += b.insns.length;
  if (total >= MIN_REGION_INSNS) return true;
  for (const b of plan.blocks) {
    if (b.end !== BlockEnd.Fall || b.next >= 4096) continue;
    const i = plan.pages[b.page].page.code?.[b.next] ?? null;
    // Cut by the limits, a block goes on in the next region; else it stops at an instruction the
    // compiler does not take.
    if (i === null || (i.op !== 1 /* Op.Gate */ && !isCompilable(i))) return false;
  }
  return true;
}

/**
 * A one-page plan's blocks split in two in plan order (the entry's half first), each half a plan of
 * its own whose extra entries are the blocks of it the other half jumps to (and `extra`'s).
 */
function halves(plan: RegionPlan, extra: ReadonlySet<number>): { plan: RegionPlan; extra: Set<number> }[] {
  const { lo: pageLo, hi: pageHi } = plan.pages[0];
  const cut = Math.ceil(plan.blocks.length / 2);
  const parts = [plan.blocks.slice(0, cut), plan.blocks.slice(cut)];
  const targets = (b: PlannedBlock): number[] => {
    const last = b.insns[b.insns.length - 1];
    const to = [b.next];
    if (b.end !== BlockEnd.Fall && b.end !== BlockEnd.Gate) {
      if (last.op === 39 /* Op.Jcc */ || last.op === 37 /* Op.Jmp */ || last.op === 34 /* Op.Call */)
        if (last.th === pageHi && (last.tl & -4096) === pageLo) to.push(last.tl & 0xfff);
    }
    return to;
  };
  return parts.map((blocks, k) => {
    const mine = new Set(blocks.map((b) => b.start));
    const entries = new Set([...extra].filter((o) => mine.has(o)));
    for (const b of parts[1 - k]) for (const t of targets(b)) if (mine.has(t)) entries.add(t);
    const index = new Map(blocks.map((b, j) => [b.start, j]));
    return {
      extra: entries,
      plan: {
        blocks,
        pages: plan.pages,
        pageOf: plan.pageOf,
        blockAt: (lo: number, hi: number) =>
          hi === pageHi && (lo & -4096) === pageLo ? index.get(lo & 0xfff) : undefined,
      },
    };
  });
}

/** A region with no code (a gate's, an int3's, or the marker of a head not compiled) and its one entry. */
function marker(pj: PageJit, offset: number, len: number, n: number, gate: Insn | null): JitRegion {
  const region = new JitRegion(pj, NOT_COMPILABLE, Int32Array.of(offset, offset + len), 0, [], gate);
  region.entries.push(new RegionEntry(region, offset, n, 0));
  return region;
}

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}
