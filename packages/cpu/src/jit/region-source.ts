import type { Insn } from '../insn.js';
import { LazyOp } from '../lazy-flags.js';
import { Op } from '../op.js';
import {
  ALU_LAZY_OP,
  type AluStage,
  aluResult,
  aluWritesResult,
  imulResult,
  incDecResult,
  negResult,
  notResult,
} from '../semantics/alu-semantics.js';
import { eaResult } from '../semantics/ea-semantics.js';
import { accExtend, widen } from '../semantics/extend-semantics.js';
import { type LazyField, lazyFlush, lazyLocals, lazyStore } from '../semantics/lazy-record.js';
import { cmovNotTaken, type RegStage, regRead, regWrite, setccValue } from '../semantics/reg-semantics.js';
import { shiftImm32Result, shiftImm64Result } from '../semantics/shift-semantics.js';
import { commitRsp, leaveRsp, poppedRsp, pushedRsp } from '../semantics/stack-semantics.js';
import {
  loadHit,
  storeHit,
  storeNotify,
  storeTouchesCode,
  type TlbStage,
  tlbHit,
  tlbLocals,
  tlbPage,
} from '../semantics/tlb-semantics.js';
import { HELPER_OPS } from './compilable.js';
import { condExpr, type FlagRecord, keepsCf, needsKeptCf } from './flag-record.js';
import { GateRun } from './region-chain.js';
import { BlockEnd, type PlannedBlock, type RegionPlan, returnSiteBlocks } from './region-plan.js';

/** What the generated source needs besides the CPU: the region's instructions and address tables. */
export interface RegionSource {
  /**
   * Body of `new Function('T', 'P', 'IO', 'X', 'F', 'XE', 'XF', body)`; it returns the
   * region function `region(cpu, rem, B, I)` (B the JitRegion, I its instructions: the same function
   * serves every region compiled from this source). The region has no try/catch (which makes V8's optimizing compiler
   * slow on big functions): the calls that may fault (XE, XF) catch it themselves, leave it in
   * `F.f` and the region rethrows it once its state is written back.
   */
  readonly body: string;
  /** Every instruction of the region, in the order of the generated code (index `k`). */
  readonly insns: Insn[];
  /**
   * Per instruction k, 4 ints: address low half, high half, instructions of its block from k on
   * (not retired when k faults), and their virtual cost; then the exits' records, 5 ints each
   * (see RegionEmitter's exitRecord).
   */
  readonly table: Int32Array;
  /**
   * Exits to a target known when compiling (a direct branch or fall-through leaving the region),
   * numbered from 0: the region function returns the number of the one it took (-1 for any other
   * exit: a ret, an indirect branch, a store into its own code), so the run loop can chain straight
   * into the region compiled there; -2 when it left before an instruction whose memory access the
   * inline TLB does not serve (a miss, a page-crossing access), which the interpreter runs next; -3
   * at a gate the host did not run in place, -4 at one it ran with effects the run loop must see
   * (see RegionEmitter's gate()).
   */
  readonly exits: number;
  /** The blocks the region function can start at (its `block` argument), the first one first. */
  readonly entries: number[];
  /**
   * Per entry, the budget the region needs to be entered there: the most instructions it may run
   * from that block before it checks its budget again (see RegionEmitter's budgets()).
   */
  readonly needs: number[];
}

/** The TLB entry of an access at `a`:`e` (names) in the region's locals for the TLB's arrays. */
function tlbStage(tagLo: string, tagHi: string, pages: string, a: string, e: string): TlbStage {
  return { tagLo, tagHi, pages, lo: a, hi: e, slot: 't', off: 'o' };
}

/** No blocks besides those a region's code makes entries anyway (RegionEmitter's default). */
export const NO_ENTRIES: ReadonlySet<number> = new Set<number>();

/** The region's registers: locals `L0`/`H0`… (int32 halves), loaded once and written back at exits. */
const LOCALS: RegStage = { lo: (r) => `L${r}`, hi: (r) => `H${r}` };

/** Where the compiler keeps a lazy-flag field: its local. */
const LOCAL_NAME = (f: LazyField): string => f.local;

/**
 * Turns every declaration in `text` (`const a = 1, b = 2;`, `let v = 0;`) into assignments, and
 * returns the names declared, to be declared once at the function's top. V8's interpreter and
 * baseline code give every block-scoped variable a register of its own and fill them all at each
 * call (320 such constants cost 90 ns a call unoptimized here, against 25 for 8 shared ones); the
 * emitter names temporaries by position in their block, so blocks share them.
 */
function hoist(text: string): { text: string; names: string[] } {
  const names = new Set<string>();
  const out = text.replace(/\b(?:const|let) ([^;]*);/g, (_, list: string) => {
    let depth = 0;
    let start = 0;
    for (let c = 0; c <= list.length; c++) {
      const ch = list[c];
      if (ch === '(' || ch === '[') depth++;
      else if (ch === ')' || ch === ']') depth--;
      else if (c === list.length || (ch === ',' && depth === 0)) {
        names.add(list.slice(start, c).split('=')[0].trim());
        start = c + 1;
      }
    }
    return `${list};`;
  });
  return { text: out, names: [...names] };
}

/** Value mask of a 1/2-byte operand as source text, null at 4/8 bytes. */
function maskText(size: number): string | null {
  return size === 1 ? '0xff' : size === 2 ? '0xffff' : null;
}

function lit(v: number): string {
  return v < 0 ? `(${v})` : `${v}`;
}

/** Per instruction of a block: does it write flags, may it fault or call out, does it read flags. */
interface InsnFlags {
  writes: boolean;
  /** May fault, calls an executor, or otherwise lets the flag state be seen. */
  observes: boolean;
  /**
   * Touches memory: its TLB miss (and a store's kill of the region) leaves the region before or right
   * after it, where the flag state must be stored, but the exit stores a writer left unstored itself.
   */
  weak: boolean;
  /** Condition read (jcc/setcc/cmovcc), -2 for a CF read (adc/sbb), -1 none. */
  reads: number;
}

/** Lazy-flag kind an inline op records (0: writes no flags). */
function flagKind(i: Insn): number {
  const op = i.op === Op.AluReg ? i.i2 : i.op;
  const alu = ALU_LAZY_OP[op];
  if (alu !== undefined) return alu;
  switch (op) {
    case Op.Neg:
      return LazyOp.Sub;
    case Op.Inc:
      return LazyOp.Inc;
    case Op.Dec:
      return LazyOp.Dec;
    case Op.Shift:
      return inlineShift(i) ? LazyOp.Result : LazyOp.None;
    case Op.Imul2:
      return inlineImul(i) ? LazyOp.Imul : LazyOp.None;
    default:
      return LazyOp.None;
  }
}

function inlineShift(i: Insn): boolean {
  if (i.dk !== 1 || i.sk !== 3 || (i.size !== 4 && i.size !== 8)) return false;
  if (i.cc !== 4 && i.cc !== 5 && i.cc !== 7) return false;
  return (i.il & (i.size === 8 ? 63 : 31)) !== 0;
}

function inlineImul(i: Insn): boolean {
  return i.sk === 1 && i.size >= 4;
}

/** Whether the op runs through its interpreter executor in this form. */
function usesHelper(i: Insn): boolean {
  switch (i.op) {
    case Op.Shift:
      return !inlineShift(i);
    case Op.Imul2:
      return !inlineImul(i);
    case Op.Push:
      return !(i.size === 8 && i.sk === 1);
    case Op.Pop:
      return !(i.size === 8 && i.dk === 1);
    case Op.Leave:
      return i.size !== 8;
    default:
      return HELPER_OPS.has(i.op);
  }
}

function touchesMemory(i: Insn): boolean {
  switch (i.op) {
    case Op.Lea:
    case Op.Nop:
      return false;
    case Op.Call:
    case Op.Ret:
    case Op.Push:
    case Op.Pop:
    case Op.Leave:
      return true;
    default:
      return i.dk === 2 || i.sk === 2;
  }
}

/** A jump to block j inside the region, in a block's text (see {@link assemble}). */
const JUMP = /@J(\d+)@/g;

/**
 * Lays a region's blocks out as structured code V8 compiles well, from their texts (each ends in
 * jumps, `@J<j>@`, or exits): a block jumped to from one place only (other than itself) is written
 * out there, nested, so the jump costs nothing; a block that jumps to itself is a loop of its own
 * (`B<j>: for (;;)`, the jump a `continue`); only the blocks the region can be entered at
 * (`enterable`) and blocks jumped to from two or more places are cases of the `switch (pc)` in the
 * region's loop, reached by `pc = j; continue L` (or entered). Blocks nothing jumps to and none
 * enters are left out. `dispatch` is false when nothing needs the switch (the region is then one
 * labelled block, `L`); `cases` are the blocks it starts at.
 */
function assemble(
  bodies: readonly string[],
  enterable: readonly boolean[],
): { text: string; dispatch: boolean; cases: number[] } {
  const preds = bodies.map((_, j) => (enterable[j] ? 1 : 0));
  bodies.forEach((text, from) => {
    for (const m of text.matchAll(JUMP)) if (Number(m[1]) !== from) preds[Number(m[1])]++;
  });
  let dispatch = false;
  const expand = (j: number): string => {
    const text = bodies[j].replace(JUMP, (_, t: string) => {
      const to = Number(t);
      if (to === j) return `continue B${j};`;
      if (preds[to] === 1 && !enterable[to]) return `{\n${expand(to)}\n}`;
      dispatch = true;
      return `pc = ${to}; continue L;`;
    });
    return bodies[j].includes(`@J${j}@`) ? `B${j}: for (;;) {\n${text}\n}` : text;
  };
  const cases: number[] = [];
  const texts: string[] = [];
  for (let j = 0; j < bodies.length; j++) {
    if (enterable[j] || preds[j] > 1) {
      cases.push(j);
      texts.push(`case ${j}: {\n${expand(j)}\n}`);
    }
  }
  if (cases.length > 1) dispatch = true;
  // Without a switch, the first block's text is the whole region.
  return dispatch ? { text: texts.join('\n'), dispatch, cases } : { text: expand(0), dispatch, cases: [0] };
}

/**
 * Generates the JS of one region. Registers live in locals (`L0`/`H0`… as int32 halves) loaded once
 * and written back at every exit; the lazy-flag state lives in locals (`fo`, `fz`, …) assigned only by
 * writers whose state can be seen (a later fault, executor call or block end before the next writer);
 * flag reads after a writer of the same block are computed from the writer's operands directly.
 */
export class RegionEmitter {
  private out: string[] = [];
  private readonly insns: Insn[] = [];
  private readonly table: number[] = [];
  private readonly used = new Set<number>();
  private readonly written = new Set<number>();
  /** Exit number by target (`hi:lo`): one link per target, whichever branch leaves for it. */
  private readonly exitIds = new Map<string, number>();
  /** Exit records (see {@link exitRecord}), 5 ints each, and their numbers by content. */
  private readonly records: number[] = [];
  private readonly recordIds = new Map<string, number>();
  /** Whether every instruction of the region costs 1 (its virtual count is its retired count). */
  private unitCost = true;
  /** The exit before the instruction being emitted, for its memory accesses' slow paths. */
  private miss = '';
  /**
   * The exit right after the instruction being emitted, without the flags an earlier writer left
   * pending (for the kill of a writer's own store, whose flags supersede those).
   */
  private afterBare = '';
  /** The flag writer of the current block so far, with its operands. */
  private cur: FlagRecord | null = null;
  /**
   * The store of the block's last flag writer when its state was not stored where it ran (nothing
   * in the region reads it before the next writer): every exit after it stores it first.
   */
  private pending = '';
  /** Per block, whether its flag state at its end can be read in the region (see {@link flagLiveOut}). */
  private liveOut: boolean[] = [];

  /** The page of the block being emitted (an index into the plan's pages). */
  private page = 0;
  /** The block being emitted (its index), and the position in it of the instruction being emitted. */
  private current = 0;
  private pos = 0;
  /**
   * Per block, whether it loops to itself and carries its flag state along its back edge: a memory
   * access before its first writer, whose exits need the state, and a last writer stored only at
   * the block's exits (see {@link carried}).
   */
  private selfLoop: boolean[] = [];
  /** Per block, the flag store its back edge carries (see {@link carried}), when it has one. */
  private readonly backStore = new Map<number, string>();
  /** No flag writer or executor call emitted yet in the current block. */
  private prefix = true;
  /** The position of the current block's first flag writer or executor call (its length if none). */
  private firstWriter = 0;
  /** Per position of the current block, the registers its instruction writes. */
  private posWrites: number[][] = [];
  /**
   * The last flag writer of the current block when it can be computed again from registers (a cmp
   * or test of registers or an immediate): its position, the registers it reads, and the code
   * computing and storing its record.
   */
  private remat: { pos: number; regs: number[]; text: string } | null = null;
  /** Where the current instruction's code starts in `out` (see {@link remat}). */
  private mark = 0;
  /** Per block, whether a jump to it checks the budget (see {@link budgets}). */
  private checks: boolean[] = [];
  /**
   * Per block, the most instructions the region may run from its start (its own included) before a
   * jump that checks the budget: what that check asks of `rem` (see {@link budgets}).
   */
  private needs: number[] = [];

  constructor(
    private readonly plan: RegionPlan,
    /** Page offsets of blocks to make entries besides those it makes anyway (see BlockCompiler.reached). */
    private readonly extraEntries: ReadonlySet<number> = NO_ENTRIES,
  ) {}

  generate(): RegionSource {
    const blocks = this.plan.blocks;
    this.unitCost = blocks.every((b) => b.insns.every((i) => i.cost === 1));
    this.liveOut = this.flagLiveOut();
    // The region is entered at its first block and may be at the return sites of its calls on its
    // own page (a call that leaves the region comes back through the run loop or the chain): those
    // are cases of its switch, as is every block jumped to from two or more places. Its entries are
    // the cases on its own page but gates (see BlockCompiler).
    const sites = new Set(this.returnSiteBlocks());
    const enterable = blocks.map(
      (b, j) =>
        j === 0 || (b.page === 0 && b.end !== BlockEnd.Gate && (sites.has(j) || this.extraEntries.has(b.start))),
    );
    this.budgets(enterable);
    const bodies: string[] = [];
    for (let j = 0; j < blocks.length; j++) {
      this.out = [];
      if (blocks[j].end === BlockEnd.Gate) this.gate(j, blocks[j]);
      else this.block(j, blocks[j]);
      bodies.push(this.out.join('\n'));
    }
    const { text: body, dispatch, cases } = assemble(bodies, enterable);
    const foreign = this.plan.pages.length > 1;
    // Whether each other page was found mapped in this run (see edge()).
    const marks = this.plan.pages.map((_, q) => `pm${q} = 0`).slice(1);
    const gates = blocks.some((b) => b.end === BlockEnd.Gate);
    const regs = [...this.used].sort((a, b) => a - b);
    const wregs = [...this.written].sort((a, b) => a - b);
    const load = regs.map((r) => `L${r} = R[${r}], H${r} = H[${r}]`).join(', ');
    const reload = regs.map((r) => `L${r} = R[${r}]; H${r} = H[${r}];`).join(' ');
    const wb = wregs.map((r) => `R[${r}] = L${r}; H[${r}] = H${r};`).join(' ');
    const flush = lazyFlush('cpu');
    const carriedFlags = body
      .replace(/@PF(\d+)@/g, (_, j: string) => {
        const store = this.backStore.get(Number(j));
        return store === undefined ? '' : `if (pf === ${j}) { ${store} } `;
      })
      .replace(/@P(\d+)@/g, (_, j: string) => (this.backStore.has(Number(j)) ? 'pf = -1; ' : ''));
    const joined = carriedFlags.replaceAll('@WB@', wb).replaceAll('@RL@', reload).replaceAll('@FL@', flush);
    const { text, names } = hoist(joined);
    // Instructions retired: every block entered took its length off `rem` (the entry's below, the
    // others at their jump), so the count is what `rem` lost, less what a partial exit did not run;
    // the virtual count is the same unless an instruction costs 0 (instrumentation bytes).
    const vcTail = this.unitCost ? 'vc = ret;' : 'vc -= xv;';
    const faults = blocks.some((b) => b.insns.some(usesHelper));
    const sizes = cases.map((j) => blocks[j].insns.length);
    const xb = this.table.length;
    const src = [
      `const { execShift, execDoubleShift, execMul, execImul2, execDiv, execExchange, execBitScan, execBitTest, execString, execFlow } = X;`,
      dispatch ? `const S = [${blocks.map((b, j) => (cases.includes(j) ? b.insns.length : 0)).join(', ')}];` : '',
      'return (function region(cpu, rem, B, I, e) {',
      'const R = cpu.R, H = cpu.H, rTL = cpu.rTagLo, rTH = cpu.rTagHi, rP = cpu.rPage, wTL = cpu.wTagLo, wTH = cpu.wTagHi, wP = cpu.wPage;',
      // The fetch TLB, for the crossings onto its other pages (see edge()).
      foreign ? 'const fTL = cpu.fTagLo, fTH = cpu.fTagHi, fP = cpu.fPage, PG = B.pages;' : '',
      foreign ? `let ${marks};` : '',
      regs.length > 0 ? `let ${load};` : '',
      lazyLocals(),
      names.length > 0 ? `let ${names.join(', ')};` : '',
      `let ret = 0, vc = 0, xr = 0, xv = 0, k = 0, sy = 0, flt = 0, nl = 0, nh = 0, pc = e, x = -1, q = -1${this.backStore.size > 0 ? ', pf = -1' : ''};`,
      // A gate commits the counts so far (see gate()), and counts again from there.
      `${gates ? 'let' : 'const'} rem0 = rem; rem -= ${dispatch ? 'S[e]' : sizes[0]};`,
      ...(dispatch ? ['L: for (;;) {', 'switch (pc) {', text, '}', '}'] : ['L: {', text, '}']),
      // A fault at instruction k (in an executor): everything before it is committed, RIP and the
      // counts point at it.
      ...(faults
        ? [
            'if (flt !== 0) {',
            `ret = rem0 - rem - T[k * 4 + 2]; ${this.unitCost ? 'vc = ret;' : 'vc -= T[k * 4 + 3];'}`,
            `if (sy === 0) { ${wb} }`,
            flush,
            'cpu.ripLo = T[k * 4]; cpu.ripHi = T[k * 4 + 1];',
            'cpu.retiredCount += ret; cpu.virtualCount += vc * cpu.costMask;',
            'const f = F.f; F.f = null; throw f;',
            '}',
          ]
        : []),
      // An exit known when compiling left its record's number in q (see exitRecord).
      ...(this.records.length > 0
        ? [
            `if (q >= 0) { const b = ${xb} + q * 5; xr = T[b]; xv = T[b + 1]; nl = T[b + 2]; nh = T[b + 3]; x = T[b + 4]; }`,
          ]
        : []),
      `ret = rem0 - rem - xr; ${vcTail}`,
      wb,
      flush,
      'cpu.ripLo = nl; cpu.ripHi = nh;',
      'cpu.retiredCount += ret; cpu.virtualCount += vc * cpu.costMask;',
      'return x;',
      '});',
    ].join('\n');
    const entries = cases.filter((j) => blocks[j].page === 0 && blocks[j].end !== BlockEnd.Gate);
    return {
      body: src,
      insns: this.insns,
      table: Int32Array.from([...this.table, ...this.records]),
      exits: this.exitIds.size,
      entries,
      needs: entries.map((j) => this.needs[j]),
    };
  }

  /**
   * Plans where the region checks its budget: not at every jump, but at jumps to the blocks that
   * close a loop (a jump back to a block on the depth-first path from an entry), to a gate and to
   * the block after one. Every cycle of the region's jumps passes one of those, so the blocks that
   * check nothing form no cycle, and each block's {@link needs} (its length plus the longest run of
   * unchecked blocks after it) is finite. A checked jump leaves unless `rem` covers its target's
   * need, and every jump still takes its target's length off `rem`; so `rem` never goes below 0, and
   * the region leaves at most a need's worth of instructions before the budget ends (the run loop
   * interprets those). Fewer checks, fewer exits, each an edge into the epilogue along which V8
   * carries every live local: the quicksort's biggest region has 16 checks where it had 40, and
   * TurboFan compiles it in 49 ms where it took 52–57.
   */
  private budgets(enterable: readonly boolean[]): void {
    const blocks = this.plan.blocks;
    const succ = blocks.map((b) => this.successors(b));
    const checks = blocks.map((b) => b.end === BlockEnd.Gate);
    for (let j = 0; j < blocks.length; j++)
      if (blocks[j].end === BlockEnd.Gate) for (const s of succ[j]) checks[s] = true;
    // Depth first, the entries first, then any block they do not reach (a stack of block, next
    // successor; no recursion, whatever the region's size): 0 not seen, 1 on the path, 2 done.
    const state = new Uint8Array(blocks.length);
    const stack: number[] = [];
    const roots = [...blocks.keys()].sort((a, b) => Number(enterable[b]) - Number(enterable[a]));
    for (const root of roots) {
      if (state[root] !== 0) continue;
      state[root] = 1;
      stack.push(root, 0);
      while (stack.length > 0) {
        const top = stack.length - 2;
        const j = stack[top];
        const c = stack[top + 1];
        if (c === succ[j].length) {
          state[j] = 2;
          stack.length = top;
          continue;
        }
        stack[top + 1] = c + 1;
        const s = succ[j][c];
        if (state[s] === 1) checks[s] = true;
        else if (state[s] === 0) {
          state[s] = 1;
          stack.push(s, 0);
        }
      }
    }
    // Each block's need once those of its unchecked successors are known (they form no cycle).
    const needs = blocks.map(() => -1);
    for (let root = 0; root < blocks.length; root++) {
      if (needs[root] >= 0) continue;
      stack.push(root, 0);
      while (stack.length > 0) {
        const top = stack.length - 2;
        const j = stack[top];
        const c = stack[top + 1];
        if (c < succ[j].length) {
          stack[top + 1] = c + 1;
          const s = succ[j][c];
          if (!checks[s] && needs[s] < 0) stack.push(s, 0);
          continue;
        }
        let most = 0;
        for (const s of succ[j]) if (!checks[s]) most = Math.max(most, needs[s]);
        // A gate retires nothing, but is reached only with budget for an instruction (as in the run loop).
        needs[j] = (blocks[j].end === BlockEnd.Gate ? 1 : blocks[j].insns.length) + most;
        stack.length = top;
      }
    }
    this.checks = checks;
    this.needs = needs;
  }

  private emit(s: string): void {
    this.out.push(s);
  }

  /**
   * Plans which flag writers of a block must store their state where they run: a backward scan from
   * the block's end, where the state is read in the region when `endLive` (an exit reads it too, but
   * each exit stores a writer left unstored itself: see {@link pending}). inc/dec always store theirs
   * (their record holds the CF they keep, read only for a stored one). Returns the writers' plan and
   * whether the state at the block's start is read.
   */
  private flagPlan(insns: Insn[], endLive: boolean): { live: boolean[]; entry: boolean; weak: boolean } {
    const info: InsnFlags[] = [];
    let lastKind = 0;
    for (const i of insns) {
      const kind = flagKind(i);
      const helper = usesHelper(i);
      let reads = -1;
      const op = i.op === Op.AluReg ? i.i2 : i.op;
      if (!helper && (i.op === Op.Jcc || i.op === Op.Setcc || i.op === Op.Cmovcc)) reads = i.cc;
      if (!helper && (op === Op.Adc || op === Op.Sbb)) reads = -2;
      // A read is generic (through CpuState, the flag state written back) without a writer before
      // it in the block, or when it needs the CF an inc/dec kept.
      const generic =
        reads !== -1 && (lastKind === 0 || (reads === -2 ? keepsCf(lastKind) : needsKeptCf(lastKind, reads)));
      info.push({ writes: kind !== 0, observes: helper || generic, weak: touchesMemory(i), reads });
      if (kind !== 0) lastKind = kind;
      else if (helper) lastKind = 0;
    }
    const live = new Array<boolean>(insns.length).fill(false);
    let needed = endLive;
    for (let m = insns.length - 1; m >= 0; m--) {
      const f = info[m];
      if (f.writes) {
        const k = flagKind(insns[m]);
        live[m] = needed || keepsCf(k);
        // inc/dec read the CF they keep, generically when no writer of theirs is known.
        needed = f.observes || keepsCf(k);
      } else if (f.observes) needed = true;
    }
    // A memory access before the block's first writer (or executor call) sees the state it was
    // entered with: its exits need it stored (see flagLiveOut).
    let weak = false;
    for (const f of info) {
      if (f.weak) weak = true;
      if (f.writes || f.observes) break;
    }
    return { live, entry: needed, weak };
  }

  /**
   * Per block, whether the flag state at its end is read by a block of the region it jumps to before
   * a writer there (a backward data-flow over the region's jumps, to its fixed point). A block with
   * no flag writer and no executor call passes on the state it was entered with, and its exits read
   * it: the state at its start is read. So does a block whose memory access before its first writer
   * may leave the region, unless the state comes from the block itself along its back edge (a loop,
   * {@link selfLoop}): its last writer is then stored only at its exits, and the memory exits before
   * its first writer compute it again from the registers it read (see {@link carried}).
   */
  private flagLiveOut(): boolean[] {
    const blocks = this.plan.blocks;
    const succ = blocks.map((b) => this.successors(b));
    const plain = blocks.map((b) => b.insns.every((i) => flagKind(i) === 0 && !usesHelper(i)));
    const liveIn = blocks.map(() => false);
    const weakIn = blocks.map(() => false);
    const out = (j: number) => succ[j].some((s) => liveIn[s] || (weakIn[s] && !(s === j && this.selfLoop[j])));
    // First every block that jumps to itself; after the fixed point, only those that are weakIn too.
    this.selfLoop = blocks.map((_, j) => succ[j].includes(j));
    for (let changed = true; changed; ) {
      changed = false;
      for (let j = blocks.length - 1; j >= 0; j--) {
        const plan = plain[j] ? null : this.flagPlan(blocks[j].insns, out(j));
        const entry = plan === null || plan.entry;
        const weak = plan !== null && !plan.entry && plan.weak;
        if (entry !== liveIn[j] || weak !== weakIn[j]) {
          liveIn[j] = entry;
          weakIn[j] = weak;
          changed = true;
        }
      }
    }
    this.selfLoop = this.selfLoop.map((self, j) => self && weakIn[j]);
    return blocks.map((_, j) => out(j));
  }

  /** The blocks of the region a block may jump to (its edges, see {@link edge}). */
  private successors(b: PlannedBlock): number[] {
    const to: number[] = [];
    const add = (lo: number, hi: number) => {
      const j = this.plan.blockAt(lo | 0, hi);
      if (j !== undefined) to.push(j);
    };
    const last = b.insns[b.insns.length - 1];
    const { lo, hi } = this.plan.pages[b.page];
    if (b.end === BlockEnd.Fall || b.end === BlockEnd.Gate) add(b.next + lo, hi);
    else if (last.op === Op.Jcc) {
      add(last.tl, last.th);
      add(last.nl, last.nh);
    } else if (last.op === Op.Jmp || last.op === Op.Call) add(last.tl, last.th);
    else if (last.op === Op.Ret) to.push(...this.returnSiteBlocks());
    return to;
  }

  private block(j: number, b: PlannedBlock): void {
    const insns = this.insns.length;
    const table = this.table.length;
    this.emitBlock(j, b);
    if (!this.selfLoop[j] || !this.backStore.has(j)) return;
    // The loop carries its flags only when its last writer can be computed again from registers that
    // hold the same values at every exit before its first writer: none is written after the writer,
    // nor before that exit. Else its flags are stored where they are written, as any block's are.
    const r = this.remat;
    let ok = r !== null;
    if (r !== null) {
      for (let p = 0; p < this.posWrites.length && ok; p++) {
        if (p > r.pos || p < this.firstWriter) for (const w of this.posWrites[p]) if (r.regs.includes(w)) ok = false;
      }
    }
    if (ok && r !== null) {
      this.backStore.set(j, r.text);
      return;
    }
    this.backStore.delete(j);
    this.selfLoop[j] = false;
    this.liveOut[j] = true;
    this.insns.length = insns;
    this.table.length = table;
    this.out = [];
    this.emitBlock(j, b);
  }

  private emitBlock(j: number, b: PlannedBlock): void {
    const n = b.insns.length;
    let cost = 0;
    for (const i of b.insns) cost += i.cost;
    if (!this.unitCost) this.emit(`vc += ${cost};`);
    this.cur = null;
    this.pending = '';
    this.page = b.page;
    this.current = j;
    this.prefix = true;
    this.firstWriter = b.insns.length;
    this.posWrites = [];
    this.remat = null;
    const { lo: pageLo, hi: pageHi } = this.plan.pages[b.page];
    const { live } = this.flagPlan(b.insns, this.liveOut[j]);
    let costLeft = cost;
    let off = b.start;
    for (let p = 0; p < n; p++) {
      const i = b.insns[p];
      const k = this.insns.length;
      this.insns.push(i);
      const addr = (pageLo + off) | 0;
      off += i.len;
      this.table.push(addr, pageHi, n - p, costLeft);
      costLeft -= i.cost;
      // Before the instruction at p (a memory access the inline TLB does not serve): the region
      // leaves with it not retired, and the interpreter runs it (region function result -2).
      this.pos = p;
      this.posWrites.push([]);
      this.mark = this.out.length;
      this.miss = `${this.carried()}q = ${this.exitRecord(n - p, costLeft + i.cost, addr, pageHi, -2)}; break L;`;
      // After the instruction at p: what an exit right after it must undo of the block's counts.
      // Exits assign constants only, so one taken first after V8 optimized the region needs no
      // type feedback of its own (which would deoptimize it); the epilogue does the arithmetic.
      this.afterBare = `q = ${this.exitRecord(n - p - 1, costLeft, i.nl, i.nh, -1)}; break L;`;
      this.insn(k, p, i, live[p], `${this.carried()}${this.afterBare}`);
    }
    if (b.end === BlockEnd.Fall) this.edge(b.next + pageLo, pageHi);
  }

  /**
   * What an exit of the current block must store of the flag state before it leaves: the pending
   * store of the block's last writer so far; or, before its first writer in a loop that carries its
   * flags along its back edge, when `pf` says the block was entered by that edge, its last writer's
   * record computed again from the registers it read (see {@link block}).
   */
  private carried(): string {
    if (this.pending !== '' || !this.prefix || !this.selfLoop[this.current]) return this.pending;
    return `@PF${this.current}@`;
  }

  /** Notes that the current instruction writes register `r` (its 64-bit index). */
  private wrote(r: number): void {
    this.written.add(r);
    this.posWrites[this.posWrites.length - 1]?.push(r);
  }

  /**
   * A transfer to `lo:hi`: inside the region when it starts a block there and the budget allows.
   * Onto another page than its own, the region goes on only while the fetch TLB (or its victim entry)
   * maps the very page it was compiled from there, a translation as valid as the run loop's: else it
   * leaves, and the run loop fetches there (a #PF once the page is gone). Back onto its own page it
   * needs no check: it was entered there, and nothing in it changes the translations (no instruction
   * that does is compiled, a TLB miss leaves, and a gate whose host changed them makes it leave, see
   * runGate). For the same reason another page, once found mapped, stays so for the rest of the run:
   * each is checked at the first crossing onto it.
   */
  private edge(lo: number, hi: number): void {
    const l = lo | 0;
    const j = this.plan.blockAt(l, hi);
    const leave = (): string => `${this.carried()}q = ${this.exitRecord(0, 0, l, hi, this.exitId(l, hi))}; break L;`;
    if (j === undefined) {
      this.emit(leave());
      return;
    }
    const to = this.plan.blocks[j];
    // A checked jump asks for its target's need (see budgets()); every jump takes the target's length.
    const conds = this.checks[j] ? [`rem < ${this.needs[j]}`] : [];
    if (to.page !== 0 && to.page !== this.page) {
      const tag = lit(l & -4096);
      const t = (l >>> 12) & 255;
      const pg = `PG[${to.page}]`;
      const tlb = `fTL[${t}] === ${tag} && fTH[${t}] === ${lit(hi)} && fP[${t}] === ${pg}`;
      const victim = `cpu.vTagLo === ${tag} && cpu.vTagHi === ${lit(hi)} && cpu.vPage === ${pg}`;
      // Asked once a run: the answer holds to the region's end (see above), so pmN keeps it.
      const m = `pm${to.page}`;
      conds.push(`(${m} === 0 && (${m} = (${tlb}) || (${victim}) ? 1 : 0) === 0)`);
    }
    // Into a loop that carries its flags along its back edge: `pf` says which way it was entered.
    let via = '';
    if (this.selfLoop[j]) {
      if (j === this.current && this.pending !== '') {
        // Its store is known once the block is emitted (block() sets it, or emits the block again).
        this.backStore.set(j, '');
        via = `pf = ${j}; `;
      } else via = `@P${j}@`;
    }
    // The jump itself is placed by assemble(): the block inline here, a loop's continue, or the switch.
    const check = conds.length > 0 ? `if (${conds.join(' || ')}) { ${leave()} } ` : '';
    this.emit(`${check}${to.end === BlockEnd.Gate ? '' : `rem -= ${to.insns.length}; `}${via}@J${j}@`);
  }

  /**
   * A gate (a block of its own): the region's state written back and its counts committed, as the
   * interpreter's would be at the gate, then the host's hook asked (see runGate). The region returns
   * -3 when the host did not run in place, -4 when it did with effects the run loop must see (the
   * state is the host's: nothing is written back again); else it reloads the registers when the
   * host may have written one (CpuCore.regWrites moved) and goes on at the next block when that is
   * where the host moved RIP and nothing the host did killed the region, or leaves for RIP.
   */
  private gate(j: number, b: PlannedBlock): void {
    const k = this.insns.length;
    this.current = j;
    this.prefix = false;
    const { lo: pageLo, hi: pageHi } = this.plan.pages[b.page];
    this.insns.push(b.insns[0]);
    this.table.push((pageLo + b.start) | 0, pageHi, 1, 0);
    this.page = b.page;
    this.cur = null;
    this.pending = '';
    const vc = this.unitCost ? 'ret' : 'vc';
    this.emit('@WB@ @FL@');
    this.emit(`cpu.ripLo = ${lit((pageLo + b.start) | 0)}; cpu.ripHi = ${lit(pageHi)};`);
    this.emit(`ret = rem0 - rem; cpu.retiredCount += ret; cpu.virtualCount += ${vc} * cpu.costMask; rem0 = rem;`);
    if (!this.unitCost) this.emit('vc = 0;');
    this.emit(`const gw = cpu.regWrites; const gr = XG(cpu, I[${k}]);`);
    this.emit(`if (gr !== ${GateRun.Go}) return gr === ${GateRun.Exit} ? -3 : -4;`);
    this.emit('if (cpu.regWrites !== gw) { @RL@ }');
    const next = (pageLo + b.next) | 0;
    this.emit(`nl = cpu.ripLo; nh = cpu.ripHi;`);
    this.emit(`if (nl === ${lit(next)} && nh === ${lit(pageHi)} && !B.dead) {`);
    this.edge(next, pageHi);
    this.emit('}');
    this.emit('break L;');
  }

  /**
   * The number of the record of an exit known when compiling: instructions of its block not run
   * (`xr`, and their cost `xv`), where RIP goes (`nl`:`nh`) and what the region returns (`x`). An
   * exit assigns only its number (`q`): one variable, not five, meets at the epilogue, which reads
   * the record from T (after the instructions' rows). Exits whose target is known only at run
   * time (a ret, an executor's branch) set `nl`/`nh` themselves and leave `q` at -1.
   */
  private exitRecord(xr: number, xv: number, nl: number, nh: number, x: number): number {
    const key = `${xr},${xv},${nl | 0},${nh | 0},${x}`;
    let id = this.recordIds.get(key);
    if (id === undefined) {
      id = this.recordIds.size;
      this.recordIds.set(key, id);
      this.records.push(xr, xv, nl | 0, nh | 0, x);
    }
    return id;
  }

  /** The number of the exit to `lo:hi`. */
  private exitId(lo: number, hi: number): number {
    const key = `${hi}:${lo}`;
    let id = this.exitIds.get(key);
    if (id === undefined) {
      id = this.exitIds.size;
      this.exitIds.set(key, id);
    }
    return id;
  }

  // --- registers -------------------------------------------------------------------------------

  /** Register `r` read at `size` bytes (reg-semantics.ts over the register locals): its low half. */
  private getLo(r: number, size: number): string {
    this.used.add(size === 1 && r >= 16 ? r - 16 : r);
    return regRead(size, r, LOCALS).lo;
  }

  private getHi(r: number, size: number): string {
    if (size !== 8) return '0';
    this.used.add(r);
    return regRead(size, r, LOCALS).hi;
  }

  /** Register `r` written at `size` bytes (reg-semantics.ts' width rules over the register locals). */
  private setR(r: number, size: number, lo: string, hi: string): void {
    const q = size === 1 && r >= 16 ? r - 16 : r;
    this.used.add(q);
    this.wrote(q);
    this.emit(regWrite(size, r, lo, hi, LOCALS).join(' '));
  }

  // --- memory ----------------------------------------------------------------------------------

  /** Emits the effective address of `i` into `a{k}`/`e{k}` (ea-semantics.ts, its form and parts known). */
  private ea(k: number, i: Insn): void {
    const reg = (r: string): string => {
      this.used.add(Number(r));
      return r;
    };
    const x = eaResult(i.mf, {
      base: `${i.mb}`,
      index: `${i.mi}`,
      scale: `${i.ms}`,
      dl: lit(i.ml),
      du: `${i.ml >>> 0}`,
      dh: lit(i.mh),
      lo: (r) => `L${reg(r)}`,
      hi: (r) => `H${reg(r)}`,
      t: `x${k}`,
      hasBase: i.mb >= 0,
      hasIndex: i.mi >= 0,
      a32: i.a32 !== 0,
      hasSeg: i.seg !== 0,
      segLo: `cpu.${i.seg === 1 ? 'fs' : 'gs'}Lo`,
      segHi: `cpu.${i.seg === 1 ? 'fs' : 'gs'}Hi`,
    });
    for (const line of x.lines) this.emit(line);
    this.emit(`const a${k} = ${x.lo}, e${k} = ${x.hi};`);
  }

  /**
   * Emits a load of `size` bytes at `a`:`e` into `let vl, vh` (CpuCore.rd* with the TLB hit inline);
   * anything else (a miss, a page-crossing access) leaves the region before the instruction.
   */
  private load(size: number, a: string, e: string, vl: string, vh: string): void {
    this.emit(`let ${vl} = 0, ${vh} = 0;`);
    const s = tlbStage('rTL', 'rTH', 'rP', a, e);
    const x = loadHit(size, tlbPage(s), 'o', 'v');
    const hit = [...x.lines, `${vl} = ${x.lo};`, ...(size === 8 ? [`${vh} = ${x.hi};`] : [])].join(' ');
    this.emit(`{ ${tlbLocals(s, 'const ')} if (${tlbHit(size, s)}) { ${hit} } else { ${this.miss} } }`);
  }

  /**
   * Emits a store (CpuCore.wr* with the TLB hit inline; decoded code on the page is told; else as
   * load()). Only a store into a page with decoded code can kill a region (its own code killed: the
   * region leaves by `dead`, which exits right after the instruction), so it checks only there.
   */
  private store(size: number, a: string, e: string, vl: string, vh: string, dead: string): void {
    const s = tlbStage('wTL', 'wTH', 'wP', a, e);
    const put = storeHit(size, 'p', 'o', vl, vh).join(' ');
    const told = `if (${storeTouchesCode('p')}) { ${storeNotify(size, 'p', 'o')} if (B.dead) { ${dead} } }`;
    this.emit(
      `{ ${tlbLocals(s, 'const ')} if (${tlbHit(size, s)}) { const p = ${tlbPage(s)}; ${put} ${told} } else { ${this.miss} } }`,
    );
  }

  // --- flags -----------------------------------------------------------------------------------

  /**
   * Records a writer: in the flag locals (lazy-record.ts: the fields its kind reads) when its state
   * can be seen, and as the block's writer.
   */
  private writeFlags(f: FlagRecord, live: boolean, regs: number[] | null = null): void {
    this.cur = f;
    if (this.prefix) this.firstWriter = this.pos;
    this.prefix = false;
    // What {@link remat} needs: the writer's code so far (its operands read, its result computed).
    this.remat =
      regs === null
        ? null
        : { pos: this.pos, regs, text: `${this.out.slice(this.mark).join(' ')} ${this.flagStore(f)}` };
    const store = this.flagStore(f);
    if (live) this.emit(store);
    this.pending = live ? '' : `${store} `;
  }

  /** The statements storing writer `f`'s record in the flag locals. */
  private flagStore(f: FlagRecord): string {
    const v = {
      op: `${f.kind}`,
      size: `${f.size}`,
      dl: f.dl,
      dh: f.dh,
      sl: f.sl,
      sh: f.sh,
      rl: f.rl,
      rh: f.rh,
      cf: f.cf,
      of: f.of,
    };
    return lazyStore(f.kind, v, LOCAL_NAME).join(' ');
  }

  /** Condition `cc` as an expression (specialized after a writer of this block, else CpuState.cond). */
  private cond(cc: number): string {
    const f = this.cur;
    if (f !== null && !needsKeptCf(f.kind, cc)) return condExpr(f, cc);
    this.emit('@FL@');
    return `cpu.cond(${cc})`;
  }

  /** CF as a 0/1 expression. */
  private carry(k: number): string {
    const f = this.cur;
    if (f !== null && !keepsCf(f.kind)) {
      this.emit(`const c${k} = ${condExpr(f, 2)} ? 1 : 0;`);
      return `c${k}`;
    }
    this.emit('@FL@');
    this.emit(`const c${k} = cpu.getCF();`);
    return `c${k}`;
  }

  // --- instructions ----------------------------------------------------------------------------

  /** Instruction `index` of the region, at position `p` of its block. */
  private insn(index: number, p: number, i: Insn, live: boolean, after: string): void {
    if (usesHelper(i)) this.emit(`k = ${index};`);
    if (usesHelper(i)) {
      this.helper(index, i, after);
      return;
    }
    // Temporaries are named by position in the block, so one set of locals serves every block.
    const k = p;
    const op = i.op;
    switch (op) {
      case Op.Nop:
        return;
      case Op.MovRR:
        if (i.size >= 4) {
          const lo = this.getLo(i.sr, 8);
          const hi = i.size === 8 ? this.getHi(i.sr, 8) : '0';
          this.setR(i.dr, i.size, lo, hi);
        } else this.setR(i.dr, i.size, this.getLo(i.sr, i.size), '0');
        return;
      case Op.MovRI:
        if (i.size >= 4) {
          // As the interpreter: the immediate's high half is already 0 at 32 bits.
          this.used.add(i.dr);
          this.wrote(i.dr);
          this.emit(`L${i.dr} = ${lit(i.il)}; H${i.dr} = ${lit(i.ih)};`);
        } else this.setR(i.dr, i.size, lit(i.il), lit(i.ih));
        return;
      case Op.MovRM:
        this.ea(k, i);
        this.load(i.size, `a${k}`, `e${k}`, `v${k}`, `w${k}`);
        this.setR(i.dr, i.size, `v${k}`, `w${k}`);
        return;
      case Op.MovMR: {
        this.ea(k, i);
        const lo = this.getLo(i.sr, i.size);
        const hi = this.getHi(i.sr, i.size);
        this.store(i.size, `a${k}`, `e${k}`, lo, hi, after);
        return;
      }
      case Op.MovMI:
        this.ea(k, i);
        this.store(i.size, `a${k}`, `e${k}`, lit(i.il), lit(i.ih), after);
        return;
      case Op.Lea:
        this.ea(k, i);
        this.setR(i.dr, i.size, `a${k}`, `e${k}`);
        return;
      case Op.Movzx:
      case Op.Movsx: {
        if (i.sk === 1) {
          this.emit(`let v${k} = ${this.getLo(i.sr, i.size2)}, w${k} = ${this.getHi(i.sr, i.size2)};`);
        } else {
          this.ea(k, i);
          this.load(i.size2, `a${k}`, `e${k}`, `v${k}`, `w${k}`);
        }
        const x = widen(op, i.size2, `v${k}`, `w${k}`);
        for (const line of x.lines) this.emit(line);
        this.setR(i.dr, i.size, x.lo, x.hi);
        return;
      }
      case Op.Add:
      case Op.Or:
      case Op.Adc:
      case Op.Sbb:
      case Op.And:
      case Op.Sub:
      case Op.Xor:
      case Op.Cmp:
      case Op.Test:
      case Op.AluReg:
        this.alu(k, i, op === Op.AluReg ? i.i2 : op, live);
        return;
      case Op.Inc:
      case Op.Dec:
      case Op.Not:
      case Op.Neg:
        this.unary(k, i, live, after);
        return;
      case Op.Shift:
        this.shift(k, i, live);
        return;
      case Op.Imul2:
        this.imul(k, i, live);
        return;
      case Op.Setcc: {
        const c = setccValue(this.cond(i.cc));
        if (i.dk === 1) this.setR(i.dr, 1, c, '0');
        else {
          this.ea(k, i);
          this.store(1, `a${k}`, `e${k}`, c, '0', after);
        }
        return;
      }
      case Op.Cmovcc: {
        if (i.sk === 1) {
          this.emit(`const v${k} = ${this.getLo(i.sr, i.size)}, w${k} = ${this.getHi(i.sr, i.size)};`);
        } else {
          this.ea(k, i);
          this.load(i.size, `a${k}`, `e${k}`, `v${k}`, `w${k}`);
        }
        const c = this.cond(i.cc);
        this.emit(`if (${c}) {`);
        this.setR(i.dr, i.size, `v${k}`, `w${k}`);
        this.emit('}');
        const otherwise = cmovNotTaken(i.size, i.dr, LOCALS);
        if (otherwise.length > 0) {
          this.used.add(i.dr);
          this.wrote(i.dr);
          this.emit(`else { ${otherwise.join(' ')} }`);
        }
        return;
      }
      case Op.Cbw:
      case Op.Cwd: {
        this.used.add(0);
        const x = accExtend(op, i.size, 'L0', 'H0');
        this.setR(x.reg, x.size, x.lo, x.hi);
        return;
      }
      case Op.Push: {
        this.emit(`const v${k} = ${this.getLo(i.sr, 8)}, w${k} = ${this.getHi(i.sr, 8)};`);
        this.push(k, `v${k}`, `w${k}`, after);
        return;
      }
      case Op.Pop:
        this.used.add(4);
        this.load(8, 'L4', 'H4', `v${k}`, `w${k}`);
        this.popCommit(8);
        this.setR(i.dr, 8, `v${k}`, `w${k}`);
        return;
      case Op.Leave:
        this.used.add(4);
        this.used.add(5);
        this.wrote(4);
        this.wrote(5);
        this.load(8, 'L5', 'H5', `v${k}`, `w${k}`);
        this.emit(`{ ${leaveRsp(8, LOCALS, 'z').join(' ')} }`);
        this.emit(`L5 = v${k}; H5 = w${k};`);
        return;
      case Op.Jcc: {
        const c = this.cond(i.cc);
        this.emit(`if (${c}) {`);
        this.edge(i.tl, i.th);
        this.emit('}');
        this.edge(i.nl, i.nh);
        return;
      }
      case Op.Jmp:
        this.edge(i.tl, i.th);
        return;
      case Op.Call:
        this.push(k, lit(i.nl), lit(i.nh), `${this.carried()}q = ${this.exitRecord(0, 0, i.tl, i.th, -1)}; break L;`);
        this.edge(i.tl, i.th);
        return;
      case Op.Ret:
        this.used.add(4);
        this.load(8, 'L4', 'H4', `v${k}`, `w${k}`);
        this.popCommit(8 + i.il);
        this.emit(`nl = v${k}; nh = w${k};`);
        this.returnSites();
        this.emit(`${this.carried()}break L;`);
        return;
      default:
        throw new Error(`int3 jit: op ${op} has no code generator`);
    }
  }

  /** The blocks at the return sites of this region's calls (each on the page of its call). */
  private returnSiteBlocks(): number[] {
    return returnSiteBlocks(this.plan);
  }

  /** After a ret: back to a call's return site of this region, the region goes on there. */
  private returnSites(): void {
    const sites = this.returnSiteBlocks();
    const pages = [...new Set(sites.map((j) => this.plan.blocks[j].page))];
    for (const q of pages) {
      const { lo, hi } = this.plan.pages[q];
      this.emit(`if (nh === ${lit(hi)} && (nl & -4096) === ${lit(lo)}) switch (nl & 0xfff) {`);
      for (const j of sites) {
        const b = this.plan.blocks[j];
        if (b.page !== q) continue;
        this.emit(`case ${b.start}:`);
        this.edge(lo + b.start, hi);
      }
      this.emit('}');
    }
  }

  /** push of 64 bits: RSP moves only once the store succeeded (stack-semantics.ts, as CpuCore.push64). */
  private push(k: number, vl: string, vh: string, dead: string): void {
    this.used.add(4);
    this.wrote(4);
    this.emit(pushedRsp(8, LOCALS, `sl${k}`, `sh${k}`, 'const ').join(' '));
    this.store(8, `sl${k}`, `sh${k}`, vl, vh, dead);
    this.emit(commitRsp(LOCALS, `sl${k}`, `sh${k}`).join(' '));
  }

  private popCommit(n: number): void {
    this.used.add(4);
    this.wrote(4);
    this.emit(`{ ${poppedRsp(n, LOCALS, 'l').join(' ')} }`);
  }

  /** An op run by its interpreter executor: registers and flags written back, then reloaded. */
  private helper(k: number, i: Insn, after: string): void {
    const name = HELPER_OPS.get(i.op) as string;
    const call = name === 'execFlags' ? `XF(cpu, I[${k}])` : `XE(${name}, cpu, I[${k}])`;
    this.emit(`@WB@ @FL@ sy = 1; if (${call}) { flt = 1; break L; } sy = 0; @RL@`);
    this.cur = null;
    this.pending = '';
    if (this.prefix) this.firstWriter = this.pos;
    this.prefix = false;
    this.remat = null;
    const op = i.op;
    if (op === Op.CallInd || op === Op.JmpInd || op === Op.Jrcxz || op === Op.Loop) {
      // Indirect call/jmp, loop, jrcxz: the executor moved RIP.
      this.emit('nl = cpu.ripLo; nh = cpu.ripHi; break L;');
      return;
    }
    this.emit(`if (B.dead) { ${after} }`);
  }

  private alu(k: number, i: Insn, op: number, live: boolean): void {
    const size = i.size;
    const w = size === 8;
    let sl: string;
    let sh: string;
    if (i.sk === 3) {
      sl = lit(i.il);
      sh = lit(i.ih);
    } else if (i.sk === 1) {
      this.emit(`const s${k} = ${this.getLo(i.sr, size)}, t${k} = ${this.getHi(i.sr, size)};`);
      sl = `s${k}`;
      sh = `t${k}`;
    } else {
      this.ea(k, i);
      this.load(size, `a${k}`, `e${k}`, `s${k}`, `t${k}`);
      sl = `s${k}`;
      sh = `t${k}`;
    }
    const mem = i.dk === 2;
    if (mem) {
      this.ea(k, i);
      this.load(size, `a${k}`, `e${k}`, `d${k}`, `h${k}`);
    } else this.emit(`const d${k} = ${this.getLo(i.dr, size)}, h${k} = ${this.getHi(i.dr, size)};`);
    const dl = `d${k}`;
    const dh = w ? `h${k}` : '0';
    if (!w) sh = i.sk === 3 ? sh : '0';
    const cin = op === Op.Adc || op === Op.Sbb ? this.carry(k) : '0';
    const m = maskText(size);
    const kind = ALU_LAZY_OP[op];
    const rl = `r${k}`;
    const rh = w ? `u${k}` : '0';
    const stage: AluStage = { w, mask: m, dl, dh, sl, sh, cin, rl, rh, t: `y${k}`, decl: 'const ' };
    for (const line of aluResult(op, stage)) this.emit(line);
    const f: FlagRecord = { kind, size, dl, dh, sl, sh: w ? sh : '0', rl, rh, cf: cin, of: '0' };
    if (aluWritesResult(op)) {
      // Killed by its own store, the region leaves with this instruction's flags.
      if (mem) this.store(size, `a${k}`, `e${k}`, rl, rh, `${this.flagStore(f)} ${this.afterBare}`);
      else this.setR(i.dr, size, rl, rh);
    }
    // A cmp or test of registers (or an immediate) can be computed again where they still hold.
    const reg = (r: number) => (size === 1 && r >= 16 ? r - 16 : r);
    const again = !aluWritesResult(op) && i.dk === 1 && i.sk !== 2;
    this.writeFlags(f, live, again ? (i.sk === 1 ? [reg(i.dr), reg(i.sr)] : [reg(i.dr)]) : null);
  }

  private unary(k: number, i: Insn, live: boolean, after: string): void {
    const size = i.size;
    const w = size === 8;
    const mem = i.dk === 2;
    if (mem) {
      this.ea(k, i);
      this.load(size, `a${k}`, `e${k}`, `d${k}`, `h${k}`);
    } else this.emit(`const d${k} = ${this.getLo(i.dr, size)}, h${k} = ${this.getHi(i.dr, size)};`);
    const dl = `d${k}`;
    const dh = w ? `h${k}` : '0';
    const m = maskText(size);
    // Killed by its own store, the region leaves with this instruction's flags (f, when it has some).
    const put = (lo: string, hi: string, f: FlagRecord | null) => {
      if (mem)
        this.store(size, `a${k}`, `e${k}`, lo, hi, f === null ? after : `${this.flagStore(f)} ${this.afterBare}`);
      else this.setR(i.dr, size, lo, hi);
    };
    switch (i.op) {
      case Op.Inc:
      case Op.Dec: {
        const inc = i.op === Op.Inc;
        const rh = w ? `u${k}` : '0';
        for (const line of incDecResult(i.op, { w, mask: m, dl, dh, rl: `r${k}`, rh, decl: 'const ' })) this.emit(line);
        // The CF inc/dec keep is read only when their flag state can be seen.
        const cf = live ? this.carry(k) : '0';
        const f = { kind: inc ? LazyOp.Inc : LazyOp.Dec, size, dl, dh, sl: '1', sh: '0', rl: `r${k}`, rh, cf, of: '0' };
        put(`r${k}`, rh, f);
        this.writeFlags(f, live);
        break;
      }
      case Op.Not: {
        const x = notResult({ w, mask: m, dl, dh });
        put(x.lo, x.hi, null);
        break;
      }
      default: {
        const rh = w ? `u${k}` : '0';
        for (const line of negResult({ w, mask: m, dl, dh, rl: `r${k}`, rh, decl: 'const ' })) this.emit(line);
        const f = { kind: LazyOp.Sub, size, dl: '0', dh: '0', sl: dl, sh: dh, rl: `r${k}`, rh, cf: '0', of: '0' };
        put(`r${k}`, rh, f);
        this.writeFlags(f, live);
      }
    }
  }

  /** shl/shr/sar r32/r64 by a non-zero immediate (shift-semantics.ts, the count known here). */
  private shift(k: number, i: Insn, live: boolean): void {
    const size = i.size;
    const n = i.il & (size === 8 ? 63 : 31);
    const d = i.dr;
    const l = `d${k}`;
    const h = `h${k}`;
    this.emit(`const ${l} = ${this.getLo(d, 8)}, ${h} = ${size === 8 ? this.getHi(d, 8) : '0'};`);
    const rl = `r${k}`;
    const rh = `u${k}`;
    const flags = { cf: `c${k}`, of: `o${k}`, decl: 'const ' };
    if (size === 4) {
      for (const line of shiftImm32Result(i.cc, n, { l, rl, ...flags })) this.emit(line);
      this.emit(`const ${rh} = 0;`);
    } else for (const line of shiftImm64Result(i.cc, n, { l, h, rl, rh, ...flags })) this.emit(line);
    this.used.add(d);
    this.wrote(d);
    this.emit(`L${d} = ${rl}; H${d} = ${rh};`);
    this.writeFlags(
      {
        kind: LazyOp.Result,
        size,
        dl: '0',
        dh: '0',
        sl: '0',
        sh: '0',
        rl,
        rh: size === 8 ? rh : '0',
        cf: `c${k}`,
        of: `o${k}`,
      },
      live,
    );
  }

  /** imul r, r / imul r, r, imm at 32/64 bits (the interpreter's inline form). */
  private imul(k: number, i: Insn, live: boolean): void {
    const w = i.size === 8;
    this.emit(`const b${k} = ${this.getLo(i.sr, 8)}, c${k} = ${w ? this.getHi(i.sr, 8) : '0'};`);
    if (i.i2 === 1) this.emit(`const d${k} = ${lit(i.il)}, h${k} = ${lit(i.ih)};`);
    else this.emit(`const d${k} = ${this.getLo(i.dr, 8)}, h${k} = ${w ? this.getHi(i.dr, 8) : '0'};`);
    const stage = { w, al: `d${k}`, ah: `h${k}`, bl: `b${k}`, bh: `c${k}`, rl: `r${k}`, rh: `u${k}`, decl: 'const ' };
    for (const line of imulResult(stage)) this.emit(line);
    this.used.add(i.dr);
    this.wrote(i.dr);
    this.emit(`L${i.dr} = r${k}; H${i.dr} = u${k};`);
    this.writeFlags(
      {
        kind: LazyOp.Imul,
        size: i.size,
        dl: `d${k}`,
        dh: `h${k}`,
        sl: `b${k}`,
        sh: `c${k}`,
        rl: `r${k}`,
        rh: `u${k}`,
        cf: '0',
        of: '0',
      },
      live,
    );
  }
}
