import type { Insn } from '../insn.js';
import { mappingEpoch } from '../mapping-epoch.js';
import type { JitRegion, RegionEntry } from './jit-region.js';
import type { JitStats } from './jit-stats.js';

/** What a chain of regions reads of the CPU between regions (and hands a gate's host hook). */
export interface ChainCpu {
  readonly retiredCount: number;
  readonly virtualCount: number;
  readonly attention: number;
  readonly tlbFlushes: number;
  readonly flags: number;
  readonly ripLo: number;
  readonly ripHi: number;
  /**
   * Runs an `int3` the chain reached as the run loop does and offers its #BP to the trap hook in
   * place (see `Cpu.int3InPlace`): 0 not taken (the run returns the #BP), 1 taken and nothing the
   * loop must see changed, 2 taken but the loop must look (attention, a nested run), 3 taken and
   * the TLB was flushed, 4 taken and TF set for a single-step, nothing else changed.
   */
  int3InPlace(int3: Insn): number;
  /**
   * After an int3InPlace answered 4: runs the instruction at RIP with TF set as the run loop does,
   * and offers its #DB to the trap hook in place (see `Cpu.stepInPlace`): -1 ran nothing (the loop
   * runs it), 1 to 3 as int3InPlace, 5 the run ends (with what the loop would have returned).
   */
  stepInPlace(): number;
}

/** The host's answer at a gate (see `Cpu.gateHook`): true when it ran in place and moved RIP. */
export type GateHook<C> = (cpu: C, gate: Insn) => boolean;

/** Why a chain stopped, when the run loop has more to do than look up the next region. */
export const ChainStop = {
  /** Nothing: the loop goes on at RIP. */
  None: 0,
  /** A gate the host did not run in place: the run exits with reason `gate` there. */
  GateExit: 1,
  /**
   * A gate the host ran in place with effects the loop must see: guest code ran (a nested run), the
   * TLB was flushed or the mappings changed, TF was set, or something needs attention.
   */
  GateHandled: 2,
  /**
   * A region left before an instruction whose memory access its inline TLB does not serve: the loop
   * interprets from RIP (which fills the TLB or raises the fault) rather than enter a region there.
   */
  Interpret: 3,
  /** An int3 whose #BP the host did not take in place: the run returns the #BP (see `Cpu.int3InPlace`). */
  TrapExit: 4,
  /**
   * An int3 whose #BP the host took in place, after which the loop must look before running on (TF
   * was set for a single-step the chain did not run, something needs attention, or guest code ran),
   * its caches valid.
   */
  TrapHandled: 5,
  /** A single-step the chain ran ended the run: the loop returns what it would have (see `Cpu.stepInPlace`). */
  Result: 6,
} as const;

/**
 * Why a chain stops after an int3 (or its single-step), by what `int3InPlace` or `stepInPlace`
 * answered other than 1 (go on) and 4 (step first).
 */
const TRAP_STOP: readonly number[] = [
  ChainStop.TrapExit,
  ChainStop.None,
  ChainStop.TrapHandled,
  ChainStop.GateHandled,
  ChainStop.None,
  ChainStop.Result,
];

/** What {@link runGate} answers. */
export const GateRun = {
  /** The host ran in place, and nothing the run loop must see changed: go on where it moved RIP. */
  Go: 0,
  /** The host did not run in place: the run exits with reason `gate` at the gate. */
  Exit: 1,
  /** The host ran in place with effects the run loop must see (see {@link ChainStop.GateHandled}). */
  Handled: 2,
} as const;

/**
 * Runs a gate as the run loop does, for a chain or a region (the CPU's registers, flags, RIP and
 * counts as the interpreter would have them there): asks the host's hook, and says how to go on.
 */
export function runGate<C extends ChainCpu>(cpu: C, gate: Insn, hook: GateHook<C> | null, stats: JitStats): number {
  const retired = cpu.retiredCount;
  const virtual = cpu.virtualCount;
  const flushes = cpu.tlbFlushes;
  const epoch = mappingEpoch.value;
  stats.gates++;
  if (hook === null || !hook(cpu, gate)) return GateRun.Exit;
  return cpu.retiredCount !== retired ||
    cpu.virtualCount !== virtual ||
    cpu.tlbFlushes !== flushes ||
    mappingEpoch.value !== epoch ||
    cpu.attention !== 0 ||
    cpu.flags & 0x100
    ? GateRun.Handled
    : GateRun.Go;
}

/** The budget of a region's first runs (see {@link JitRegion.warm}): a few exits, soon. */
const WARM_BUDGET = 1024;

/**
 * A new fetch generation: the run loop takes one whenever the CPU's fetch translations may have
 * changed (a TLB flush); links between regions made under another are void. Global, so no two CPUs
 * share one.
 */
let generation = 0;
export function nextGeneration(): number {
  return ++generation;
}

/**
 * Runs compiled regions one after another without the run loop: a region's exit leads straight to
 * the region last found at its target (its link), as QEMU's TB chaining does. Each CPU has one.
 * @see QEMU accel/tcg: tb_add_jump() for the idea (no code taken from it)
 */
export class RegionChain {
  /**
   * The fetch generation this CPU's links are made and followed in, renewed by the run loop whenever
   * `flushes` (the CPU's TLB flush count it was taken at) is behind.
   */
  gen = 0;
  flushes = -1;
  /** Why the last {@link enter} stopped (a {@link ChainStop}); the run loop reads and clears it. */
  stop: number = ChainStop.None;
  /** The exit the last chain stopped at without a link, to link once the loop finds its target. */
  private lastRegion: JitRegion | null = null;
  private lastExit = 0;
  private lastGen = 0;
  private lastRetired = 0;
  private lastLo = 0;
  private lastHi = 0;

  constructor(private readonly stats: JitStats) {}

  /**
   * Runs the region at `entry` (found by the run loop at RIP, its block within `avail`), then, while
   * nothing needs the loop's attention, the region entries linked at its exits, each while `avail`
   * instructions cover what its entry needs. Returns the instructions retired. A chain is exact because
   * each region is, and it stops wherever the loop would do more than look up the next region: a
   * TLB flush or pending interrupt raises `attention`; a killed region is dead; a new generation
   * voids every link (and links made by another CPU, whose generations are never this one's); a
   * link of an exit whose target is not in the code (a ret, an indirect branch, after a gate) holds
   * for the one target it was made for.
   */
  enter<C extends ChainCpu>(cpu: C, entry: RegionEntry, avail: number, hook: GateHook<C> | null): number {
    const start = cpu.retiredCount;
    const gen = this.gen;
    // Step 1: the last chain stopped at an exit whose target is this entry: link them, if nothing
    // ran in between (the same count and RIP) under the same translation.
    const last = this.lastRegion;
    if (last !== null) {
      if (
        this.lastGen === gen &&
        this.lastRetired === start &&
        this.lastLo === cpu.ripLo &&
        this.lastHi === cpu.ripHi &&
        !last.dead
      ) {
        last.links[this.lastExit] = entry;
        last.gens[this.lastExit] = gen;
        if (this.lastExit === last.dynamic) {
          last.dynLo = cpu.ripLo;
          last.dynHi = cpu.ripHi;
        }
      }
      this.lastRegion = null;
    }
    // Step 2: run the region, and the regions linked at its exits.
    const stats = this.stats;
    let e = entry;
    let left = avail;
    for (;;) {
      const r = e.region;
      let x: number;
      const gate = r.gate;
      if (gate === null) {
        const before = cpu.retiredCount;
        // A new region's first runs get a small budget, so they leave it soon: its exit code runs
        // (and gets V8's type feedback) before V8 optimizes a long first run's loop in place,
        // whose optimized code would otherwise deoptimize at the exit, at every run.
        let budget = left;
        if (r.warm > 0) {
          r.warm--;
          if (budget > WARM_BUDGET) budget = WARM_BUDGET;
        }
        x = r.fn(cpu, budget, r, r.insns, e.block);
        left -= cpu.retiredCount - before;
        stats.entries++;
        if (x < -1) {
          // -2: before an access its TLB does not serve; -3 and -4: at a gate of its own (see runGate).
          this.stop = x === -2 ? ChainStop.Interpret : x === -3 ? ChainStop.GateExit : ChainStop.GateHandled;
          break;
        }
        if (cpu.attention !== 0) break;
        if (x < 0) x = r.dynamic;
      } else if (gate.op === 72 /* Op.Int3 */) {
        // An int3 (a probe's breakpoint): it retires and the host takes its #BP in place, or not, as
        // in the run loop; a probe hit needs no run-loop pass when the chain can go on where the host
        // moved RIP (a boosted probe's slot), nor when the host set TF to single-step the instruction
        // there (an unboosted probe's copy) and the budget covers it: the chain steps it as the loop
        // would, and goes on where the host's #DB handler moved RIP.
        stats.traps++;
        let taken = cpu.int3InPlace(gate);
        if (taken === 4) {
          if (left > 1) {
            taken = cpu.stepInPlace();
            if (taken < 0) taken = 2;
            else stats.steps++;
            if (taken === 1) left--;
          } else taken = 2;
        }
        if (taken !== 1) {
          this.stop = TRAP_STOP[taken];
          break;
        }
        left--;
        x = r.dynamic;
      } else {
        // A gate is no instruction: the host runs in place (or not), as in the run loop.
        const g = runGate(cpu, gate, hook, stats);
        if (g !== GateRun.Go) {
          this.stop = g === GateRun.Exit ? ChainStop.GateExit : ChainStop.GateHandled;
          break;
        }
        x = r.dynamic;
      }
      const next = r.links[x];
      if (
        next === null ||
        next.region.dead ||
        r.gens[x] !== gen ||
        (x === r.dynamic && (r.dynLo !== cpu.ripLo || r.dynHi !== cpu.ripHi))
      ) {
        // Step 3: no link yet (or a stale one): remember the exit for Step 1.
        this.lastRegion = r;
        this.lastExit = x;
        this.lastGen = gen;
        this.lastRetired = cpu.retiredCount;
        this.lastLo = cpu.ripLo;
        this.lastHi = cpu.ripHi;
        break;
      }
      if (next.n > left) break;
      stats.chained++;
      e = next;
    }
    stats.exits++;
    const done = cpu.retiredCount - start;
    stats.retired += done;
    return done;
  }
}
