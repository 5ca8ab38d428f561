import type { Insn } from '../../insn.js';
import { LazyOp } from '../../lazy-flags.js';
import { Op } from '../../op.js';
import { ALU_LAZY_OP } from '../../semantics/alu-semantics.js';
import { SHIFT_SAR, SHIFT_SHL, SHIFT_SHR } from '../../semantics/shift-semantics.js';
import { BlockEnd, type PlannedBlock, type RegionPlan, returnSiteBlocks } from '../region-plan.js';
import { condFunction } from './wasm-cond.js';
import {
  EXCHANGE,
  P_PC,
  P_REGS,
  P_REM,
  P_RTLB,
  P_WTLB,
  TLB_HI,
  TLB_OFF,
  X_FLAGS,
  X_RETIRED,
  X_RIP_HI,
  X_RIP_LO,
} from './wasm-layout.js';
import { opOf } from './wasm-takes.js';
import { I32, I64, W, WasmFunction, writeModule } from './wasm-writer.js';

/** What the back end made of a plan: the module's bytes, and what a JitRegion needs of it. */
export interface WasmRegionCode {
  readonly bytes: Uint8Array;
  /** Static exits, numbered from 0 (RegionSource.exits). */
  readonly exits: number;
  /** The blocks it can be entered at, the first one first, and the budget each needs. */
  readonly entries: number[];
  readonly needs: number[];
  /** Whether it reads the flag state it is entered with (the wrapper puts it in the exchange area only then). */
  readonly readsFlags: boolean;
}

/** Conditions after a cmp/sub as the first operand compared with the second: the i64 and i32 compare. */
const SUB_ORDERS: Readonly<Record<number, readonly [number, number]>> = {
  2: [W.i64LtU, W.i32LtU],
  3: [W.i64GeU, W.i32GeU],
  4: [W.i64Eq, W.i32Eq],
  5: [W.i64Ne, W.i32Ne],
  6: [W.i64LeU, W.i32LeU],
  7: [W.i64GtU, W.i32GtU],
  12: [W.i64LtS, W.i32LtS],
  13: [W.i64GeS, W.i32GeS],
  14: [W.i64LeS, W.i32LeS],
  15: [W.i64GtS, W.i32GtS],
};

/** Conditions after a logic op (CF = OF = 0) as the result compared with 0: the i64 and i32 compare. */
const LOGIC_VS_ZERO: Readonly<Record<number, readonly [number, number]>> = {
  6: [W.i64Eq, W.i32Eq],
  7: [W.i64Ne, W.i32Ne],
  12: [W.i64LtS, W.i32LtS],
  13: [W.i64GeS, W.i32GeS],
  14: [W.i64LeS, W.i32LeS],
  15: [W.i64GtS, W.i32GtS],
};

/** Conditions of ZF and SF alone, after any writer: the result compared with 0. */
const ZS_VS_ZERO: Readonly<Record<number, readonly [number, number]>> = {
  4: [W.i64Eq, W.i32Eq],
  5: [W.i64Ne, W.i32Ne],
  8: [W.i64LtS, W.i32LtS],
  9: [W.i64GeS, W.i32GeS],
};

/** A flag writer of the current block, its operands and result in i64 locals (zero-extended at its size). */
interface Writer {
  readonly kind: number;
  readonly size: number;
}

/** The module's functions after the imported imulOverflow: cond, then run. */
const COND = 1;

/**
 * Writes one region as a WebAssembly module (its `run` export; see WasmRun), from the same
 * plan the JavaScript back end takes (region-plan.ts), with the same exits, entries and budget
 * rules, so the two are interchangeable: registers are i64 locals loaded from R/H and written back
 * at the exit; the lazy-flag record is ten i32 locals taken from and given back to the exchange area,
 * set by each writer as the interpreter sets CpuState's; a condition after a writer of the same block
 * is computed from its operands, else by the module's `cond` function from the record. Memory goes
 * through the CPU's TLB: a miss, a page-crossing access or a store to a page with decoded code
 * (PageArena.codeMap) leaves the region before the instruction, and the interpreter runs it (-2).
 * Every jump inside the region checks the budget for its target's block. Blocks are cases of a
 * `br_table` in a loop; a block falls into the next one in plan order without it.
 */
export class WasmRegionEmitter {
  private readonly fn = new WasmFunction([I32, I32, I32, I32, I32], [I32]);
  /** The 64-bit registers' locals. */
  private readonly regs: number[] = [];
  private readonly used = new Set<number>();
  private readonly written = new Set<number>();
  /** The lazy-flag record's locals, in CpuState's order (op, size, dl, dh, sl, sh, rl, rh, cf, of), and RFLAGS. */
  private readonly lazy: number[] = [];
  private readonly flags: number;
  private readonly rem0: number;
  private readonly xr: number;
  private readonly nl: number;
  private readonly nh: number;
  private readonly x: number;
  private readonly lo: number;
  private readonly hi: number;
  private readonly slot: number;
  private readonly addr: number;
  /** An inc/dec's kept CF. */
  private readonly keptCf: number;
  private readonly ea: number;
  private readonly v: number;
  /**
   * A flag writer's operands and result, for the conditions after it in its block (see direct):
   * no other instruction writes them.
   */
  private readonly d: number;
  private readonly s: number;
  private readonly r: number;
  private readonly exitIds = new Map<string, number>();
  /** Blocks open around the current instruction's code inside its block (ifs). */
  private depth = 0;
  /** The block being written, its instruction count, and the instruction's position in it. */
  private current = 0;
  private count = 0;
  private pos = 0;
  private cur: Writer | null = null;
  /** Whether a flag read may see the state the region was entered with (a read before its block's first writer). */
  private readsEntry = false;
  /** The blocks at the return sites of the region's calls (entries, and where a ret may go on). */
  private readonly sites: number[];
  /** The page offset of the instruction being written. */
  private at = 0;

  constructor(
    private readonly plan: RegionPlan,
    /** Page offsets of blocks to make entries besides the first and the return sites (BlockCompiler.reached). */
    private readonly extra: ReadonlySet<number>,
  ) {
    this.sites = returnSiteBlocks(plan);
    const f = this.fn;
    for (let r = 0; r < 16; r++) this.regs.push(f.local(I64));
    for (let k = 0; k < 10; k++) this.lazy.push(f.local(I32));
    this.flags = f.local(I32);
    this.rem0 = f.local(I32);
    this.xr = f.local(I32);
    this.nl = f.local(I32);
    this.nh = f.local(I32);
    this.x = f.local(I32);
    this.lo = f.local(I32);
    this.hi = f.local(I32);
    this.slot = f.local(I32);
    this.addr = f.local(I32);
    this.keptCf = f.local(I32);
    this.ea = f.local(I64);
    this.v = f.local(I64);
    this.d = f.local(I64);
    this.s = f.local(I64);
    this.r = f.local(I64);
  }

  generate(): WasmRegionCode {
    const blocks = this.plan.blocks;
    const n = blocks.length;
    const f = this.fn;
    // The body: a loop around a br_table over the blocks, each block's code after the end of its
    // label's block (so a block falls into the next one), then the exit's block.
    f.open(W.block); // $exit
    f.open(W.loop); // $L
    for (let j = n - 1; j >= 0; j--) f.open(W.block);
    f.get(P_PC).brTable(
      blocks.map((_, j) => j),
      0,
    );
    for (let j = 0; j < n; j++) {
      f.op(W.end);
      this.block(j, blocks[j]);
    }
    // Each block ends in a jump or an exit: nothing falls out of the last one.
    f.op(W.unreachable);
    f.op(W.end); // $L
    f.op(W.end); // $exit
    return this.finish();
  }

  // --- layout ----------------------------------------------------------------------------------

  /** Depth of the region loop's label from the current code. */
  private loopDepth(): number {
    return this.plan.blocks.length - 1 - this.current + this.depth;
  }

  private exitDepth(): number {
    return this.loopDepth() + 1;
  }

  private block(j: number, b: PlannedBlock): void {
    this.current = j;
    this.count = b.insns.length;
    this.depth = 0;
    this.cur = null;
    this.at = b.start;
    for (let p = 0; p < b.insns.length; p++) {
      this.pos = p;
      this.insn(b.insns[p]);
      this.at += b.insns[p].len;
    }
    const last = b.insns[b.insns.length - 1];
    if (b.end === BlockEnd.Fall) this.edge(last.nl, last.nh);
  }

  /** A jump to `lo:hi`: into the region while the budget covers the target's block, else out by its static exit. */
  private edge(lo: number, hi: number): void {
    const f = this.fn;
    const j = this.plan.blockAt(lo | 0, hi);
    if (j === undefined) {
      this.exitStatic(lo, hi);
      return;
    }
    const len = this.plan.blocks[j].insns.length;
    f.get(P_REM).i32(len).op(W.i32LtS).open(W.if);
    this.depth++;
    this.exitStatic(lo, hi);
    this.depth--;
    f.op(W.end);
    f.get(P_REM).i32(len).op(W.i32Sub).set(P_REM);
    if (j === this.current + 1 && this.depth === 0) return; // falls into it
    f.i32(j).set(P_PC).br(W.br, this.loopDepth());
  }

  /** Leaves for `lo:hi` by its static exit (the chain links it), after the whole block. */
  private exitStatic(lo: number, hi: number): void {
    const key = `${hi}:${lo | 0}`;
    let id = this.exitIds.get(key);
    if (id === undefined) {
      id = this.exitIds.size;
      this.exitIds.set(key, id);
    }
    this.exit(0, lo | 0, hi, id);
  }

  /** Leaves before the current instruction (not retired: the interpreter runs it). */
  private exitBefore(): void {
    const addr = (this.plan.pages[0].lo + this.at) | 0;
    this.exit(this.count - this.pos, addr, this.plan.pages[0].hi, -2);
  }

  private exit(xr: number, nl: number, nh: number, x: number): void {
    const f = this.fn;
    f.i32(xr).set(this.xr).i32(nl).set(this.nl).i32(nh).set(this.nh).i32(x).set(this.x);
    f.br(W.br, this.exitDepth());
  }

  /** Leaves for the address in `nl`/`nh` (a ret's), by the dynamic exit, after the whole block. */
  private exitDynamic(): void {
    const f = this.fn;
    f.i32(0).set(this.xr).i32(-1).set(this.x);
    f.br(W.br, this.exitDepth());
  }

  /** Runs `then` inside `if` of the i32 on the stack. */
  private when(then: () => void): void {
    const f = this.fn;
    f.open(W.if);
    this.depth++;
    then();
    this.depth--;
    f.op(W.end);
  }

  // --- registers -------------------------------------------------------------------------------

  private reg(r: number): number {
    this.used.add(r);
    return this.regs[r];
  }

  /** Pushes register `r` at `size` bytes, zero-extended to i64. */
  private getR(r: number, size: number): void {
    const f = this.fn;
    if (size === 1 && r >= 16) {
      f.get(this.reg(r - 16))
        .i64(8n)
        .op(W.i64ShrU)
        .i64(0xffn)
        .op(W.i64And);
      return;
    }
    f.get(this.reg(r));
    if (size < 8) f.i64(size === 4 ? 0xffffffffn : size === 2 ? 0xffffn : 0xffn).op(W.i64And);
  }

  /** Writes the i64 on the stack to register `r` at `size` bytes (32-bit writes zero the upper half, 8/16-bit merge). */
  private setR(r: number, size: number): void {
    const f = this.fn;
    const high = size === 1 && r >= 16;
    const q = high ? r - 16 : r;
    const local = this.reg(q);
    this.written.add(q);
    if (size === 8) {
      f.set(local);
      return;
    }
    if (size === 4) {
      f.i64(0xffffffffn).op(W.i64And).set(local);
      return;
    }
    const mask = size === 2 ? 0xffffn : 0xffn;
    f.i64(mask).op(W.i64And);
    if (high) f.i64(8n).op(W.i64Shl);
    const keep = high ? ~0xff00n : ~mask;
    f.get(local).i64(keep).op(W.i64And).op(W.i64Or).set(local);
  }

  // --- memory ----------------------------------------------------------------------------------

  /** Pushes the effective address of `i`'s memory operand (i64). */
  private effective(i: Insn): void {
    const f = this.fn;
    const disp = (BigInt(i.mh) << 32n) | BigInt(i.ml >>> 0);
    let any = false;
    if (i.mb >= 0) {
      f.get(this.reg(i.mb));
      any = true;
    }
    if (i.mi >= 0) {
      f.get(this.reg(i.mi));
      if (i.ms > 1) f.i64(BigInt(Math.log2(i.ms))).op(W.i64Shl);
      if (any) f.op(W.i64Add);
      any = true;
    }
    if (!any) f.i64(disp);
    else if (disp !== 0n) f.i64(disp).op(W.i64Add);
  }

  /**
   * Translates the address in `ea` for an access of `size` bytes through the read or write TLB into
   * `addr` (in the memory); leaves the region before the instruction on a miss, a page crossing, a
   * page outside the arena, or a store to a page with decoded code.
   */
  private translate(size: number, write: boolean): void {
    const f = this.fn;
    const tlb = write ? P_WTLB : P_RTLB;
    f.get(this.ea).op(W.i32WrapI64).set(this.lo);
    f.get(this.ea).i64(32n).op(W.i64ShrU).op(W.i32WrapI64).set(this.hi);
    f.get(this.lo).i32(12).op(W.i32ShrU).get(this.hi).op(W.i32Xor).i32(255).op(W.i32And).i32(2).op(W.i32Shl);
    f.get(tlb).op(W.i32Add).set(this.slot);
    // Tags differ, or the page has no slot in the memory (its offset is -1), or the access crosses it.
    f.get(this.slot).mem(W.i32Load, 2, 0).get(this.lo).i32(-4096).op(W.i32And).op(W.i32Ne);
    f.get(this.slot).mem(W.i32Load, 2, TLB_HI).get(this.hi).op(W.i32Ne).op(W.i32Or);
    f.get(this.slot).mem(W.i32Load, 2, TLB_OFF).tee(this.addr).i32(0).op(W.i32LtS).op(W.i32Or);
    if (size > 1)
      f.get(this.lo)
        .i32(0xfff)
        .op(W.i32And)
        .i32(4096 - size)
        .op(W.i32GtU)
        .op(W.i32Or);
    this.when(() => this.exitBefore());
    f.get(this.addr).get(this.lo).i32(0xfff).op(W.i32And).op(W.i32Add).set(this.addr);
    if (write) {
      // The code map's byte for the slot (at the memory's start).
      f.get(this.addr).i32(12).op(W.i32ShrU).mem(W.i32Load8U, 0, 0);
      this.when(() => this.exitBefore());
    }
  }

  /** Pushes the `size` bytes at `addr`, zero-extended to i64. */
  private loadAt(size: number): void {
    const f = this.fn;
    f.get(this.addr);
    if (size === 8) f.mem(W.i64Load, 0);
    else if (size === 4) f.mem(W.i64Load32U, 0);
    else if (size === 2) f.mem(W.i64Load16U, 0);
    else f.mem(W.i64Load8U, 0);
  }

  /** Stores the i64 in `v` at `addr`, `size` bytes. */
  private storeAt(size: number): void {
    const f = this.fn;
    f.get(this.addr).get(this.v);
    if (size === 8) f.mem(W.i64Store, 0);
    else if (size === 4) f.mem(W.i64Store32, 0);
    else if (size === 2) f.mem(W.i64Store16, 0);
    else f.mem(W.i64Store8, 0);
  }

  /** Loads `i`'s memory operand (`size` bytes) onto the stack. */
  private loadOperand(i: Insn, size: number): void {
    this.effective(i);
    this.fn.set(this.ea);
    this.translate(size, false);
    this.loadAt(size);
  }

  // --- flags -----------------------------------------------------------------------------------

  /**
   * Records a writer of `kind` at `size` with its operands in `d`/`s` and result in `r` (i64,
   * zero-extended at the size): the lazy record's locals as CpuState.setLazy stores them (int32
   * halves; at 1/2/4 bytes the low half only, the high halves 0), `cf` from the i32 on the stack
   * when `carry` says so, else 0.
   */
  private writeFlags(kind: number, size: number, carry: boolean): void {
    const f = this.fn;
    const [fo, fz, fdl, fdh, fsl, fsh, frl, frh, fc] = this.lazy;
    if (carry) f.set(fc);
    else f.i32(0).set(fc);
    f.i32(kind).set(fo).i32(size).set(fz);
    const halves = (v: number, l: number, h: number) => {
      f.get(v).op(W.i32WrapI64).set(l);
      if (size === 8) f.get(v).i64(32n).op(W.i64ShrU).op(W.i32WrapI64).set(h);
      else f.i32(0).set(h);
    };
    halves(this.d, fdl, fdh);
    halves(this.s, fsl, fsh);
    halves(this.r, frl, frh);
    this.cur = { kind, size };
  }

  /** Pushes condition `cc` (0/1). */
  private condition(cc: number): void {
    const f = this.fn;
    const w = this.cur;
    if (w !== null && this.direct(w, cc)) return;
    // Before a writer of its block, a read may see the state the region was entered with.
    if (w === null) this.readsEntry = true;
    f.i32(cc);
    for (const l of this.lazy) f.get(l);
    f.get(this.flags).call(COND);
  }

  /** A condition straight from the writer's operands, where that is simple; false otherwise. */
  private direct(w: Writer, cc: number): boolean {
    const f = this.fn;
    if (w.size !== 8 && w.size !== 4) return false;
    const wide = w.size === 8;
    /** Pushes local `l` at the writer's size (an i64, or its low half). */
    const at = (l: number) => {
      f.get(l);
      if (!wide) f.op(W.i32WrapI64);
    };
    /** Compares the result with 0 by `op64` or `op32`. */
    const result = (op64: number, op32: number) => {
      at(this.r);
      if (wide) f.i64(0n).op(op64);
      else f.i32(0).op(op32);
      return true;
    };
    if (w.kind === LazyOp.Sub) {
      // cmp/sub: the orders straight from the operands.
      const o = SUB_ORDERS[cc];
      if (o !== undefined) {
        at(this.d);
        at(this.s);
        f.op(wide ? o[0] : o[1]);
        return true;
      }
    }
    if (w.kind === LazyOp.Logic) {
      // CF = OF = 0: B never, AE always, BE is Z, A is not Z, L is S, LE is S or Z.
      if (cc === 2 || cc === 3) {
        f.i32(cc - 2);
        return true;
      }
      const o = LOGIC_VS_ZERO[cc];
      if (o !== undefined) return result(o[0], o[1]);
    }
    // Every kind: ZF and SF from the result (the dec; jnz of a counted loop).
    const o = ZS_VS_ZERO[cc];
    if (o !== undefined) return result(o[0], o[1]);
    // An add's CF: the result below the first operand (unsigned), the record's carry in being 0.
    if (w.kind === LazyOp.Add && (cc === 2 || cc === 3)) {
      at(this.r);
      at(this.d);
      f.op(wide ? (cc === 2 ? W.i64LtU : W.i64GeU) : cc === 2 ? W.i32LtU : W.i32GeU);
      return true;
    }
    return false;
  }

  // --- instructions ----------------------------------------------------------------------------

  private insn(i: Insn): void {
    const f = this.fn;
    const op = opOf(i);
    switch (op) {
      case Op.Nop:
        return;
      case Op.MovRR:
        this.getR(i.sr, i.size);
        this.setR(i.dr, i.size);
        return;
      case Op.MovRI:
        f.i64((BigInt(i.ih) << 32n) | BigInt(i.il >>> 0));
        this.setR(i.dr, i.size);
        return;
      case Op.MovRM:
        this.loadOperand(i, i.size);
        this.setR(i.dr, i.size);
        return;
      case Op.MovMR:
      case Op.MovMI:
        if (op === Op.MovMR) this.getR(i.sr, i.size);
        else f.i64((BigInt(i.ih) << 32n) | BigInt(i.il >>> 0));
        f.set(this.v);
        this.effective(i);
        f.set(this.ea);
        this.translate(i.size, true);
        this.storeAt(i.size);
        return;
      case Op.Lea:
        this.effective(i);
        this.setR(i.dr, i.size);
        return;
      case Op.Movzx:
      case Op.Movsx:
        if (i.sk === 1) this.getR(i.sr, i.size2);
        else this.loadOperand(i, i.size2);
        if (op === Op.Movsx) f.op(i.size2 === 1 ? W.i64Extend8S : i.size2 === 2 ? W.i64Extend16S : W.i64Extend32S);
        this.setR(i.dr, i.size);
        return;
      case Op.Add:
      case Op.Sub:
      case Op.Cmp:
      case Op.And:
      case Op.Or:
      case Op.Xor:
      case Op.Test:
        this.alu(i, op);
        return;
      case Op.Inc:
      case Op.Dec:
      case Op.Not:
      case Op.Neg:
        this.unary(i, op);
        return;
      case Op.Shift:
        this.shift(i);
        return;
      case Op.Imul2:
        this.imul(i);
        return;
      case Op.Setcc:
        this.condition(i.cc);
        f.op(W.i64ExtendI32U);
        if (i.dk === 1) this.setR(i.dr, 1);
        else {
          f.set(this.v);
          this.effective(i);
          f.set(this.ea);
          this.translate(1, true);
          this.storeAt(1);
        }
        return;
      case Op.Cmovcc: {
        if (i.sk === 1) this.getR(i.sr, i.size);
        else this.loadOperand(i, i.size);
        f.set(this.v);
        this.condition(i.cc);
        f.open(W.if);
        f.get(this.v);
        this.setR(i.dr, i.size);
        if (i.size === 4) {
          // Not taken, a 32-bit cmov still zeroes the upper half.
          f.op(W.else);
          const d = this.reg(i.dr);
          this.written.add(i.dr);
          f.get(d).i64(0xffffffffn).op(W.i64And).set(d);
        }
        f.op(W.end);
        return;
      }
      case Op.Push: {
        const rsp = this.reg(4);
        this.getR(i.sr, 8);
        f.set(this.v);
        f.get(rsp).i64(8n).op(W.i64Sub).set(this.ea);
        this.translate(8, true);
        this.storeAt(8);
        f.get(this.ea).set(rsp);
        this.written.add(4);
        return;
      }
      case Op.Pop: {
        const rsp = this.reg(4);
        f.get(rsp).set(this.ea);
        this.translate(8, false);
        this.loadAt(8);
        f.set(this.v);
        f.get(rsp).i64(8n).op(W.i64Add).set(rsp);
        this.written.add(4);
        f.get(this.v);
        this.setR(i.dr, 8);
        return;
      }
      case Op.Jcc:
        this.condition(i.cc);
        this.when(() => this.edge(i.tl, i.th));
        this.edge(i.nl, i.nh);
        return;
      case Op.Jmp:
        this.edge(i.tl, i.th);
        return;
      case Op.Call: {
        const rsp = this.reg(4);
        f.i64((BigInt(i.nh) << 32n) | BigInt(i.nl >>> 0)).set(this.v);
        f.get(rsp).i64(8n).op(W.i64Sub).set(this.ea);
        this.translate(8, true);
        this.storeAt(8);
        f.get(this.ea).set(rsp);
        this.written.add(4);
        this.edge(i.tl, i.th);
        return;
      }
      case Op.Ret: {
        const rsp = this.reg(4);
        f.get(rsp).set(this.ea);
        this.translate(8, false);
        this.loadAt(8);
        f.tee(this.v).op(W.i32WrapI64).set(this.nl);
        f.get(this.v).i64(32n).op(W.i64ShrU).op(W.i32WrapI64).set(this.nh);
        f.get(rsp)
          .i64(BigInt(8 + i.il))
          .op(W.i64Add)
          .set(rsp);
        this.written.add(4);
        // Back to the return site of one of the region's calls: the region goes on there.
        for (const site of this.sites) {
          const b = this.plan.blocks[site];
          const lo = (this.plan.pages[0].lo + b.start) | 0;
          const hi = this.plan.pages[0].hi;
          f.get(this.nl).i32(lo).op(W.i32Eq).get(this.nh).i32(hi).op(W.i32Eq).op(W.i32And);
          this.when(() => this.edge(lo, hi));
        }
        this.exitDynamic();
        return;
      }
      default:
        throw new Error(`int3 jit: op ${op} has no WebAssembly code`);
    }
  }

  /** The destination's value (register or memory: then `addr` holds its place, for the write back). */
  private destination(i: Insn, writes: boolean): void {
    if (i.dk === 1) {
      this.getR(i.dr, i.size);
      return;
    }
    this.effective(i);
    this.fn.set(this.ea);
    // A read-modify-write goes through the write TLB, so nothing runs before a store that leaves.
    this.translate(i.size, writes);
    this.loadAt(i.size);
  }

  /** Writes the result in `local` (`r` by default) to the destination (a register, or memory at `addr`). */
  private writeBack(i: Insn, local = this.r): void {
    const f = this.fn;
    if (i.dk === 1) {
      f.get(local);
      this.setR(i.dr, i.size);
      return;
    }
    if (local !== this.v) f.get(local).set(this.v);
    this.storeAt(i.size);
  }

  /** Masks the i64 on the stack to `size` bytes (zero-extended). */
  private mask(size: number): void {
    if (size < 8) this.fn.i64(size === 4 ? 0xffffffffn : size === 2 ? 0xffffn : 0xffn).op(W.i64And);
  }

  private alu(i: Insn, op: number): void {
    const f = this.fn;
    const writes = op !== Op.Cmp && op !== Op.Test;
    // The source first (a memory source is read before a memory destination is translated).
    if (i.sk === 1) this.getR(i.sr, i.size);
    else if (i.sk === 2) this.loadOperand(i, i.size);
    else {
      f.i64((BigInt(i.ih) << 32n) | BigInt(i.il >>> 0));
      this.mask(i.size);
    }
    f.set(this.s);
    this.destination(i, writes);
    f.set(this.d);
    f.get(this.d).get(this.s);
    switch (op) {
      case Op.Add:
        f.op(W.i64Add);
        break;
      case Op.Sub:
      case Op.Cmp:
        f.op(W.i64Sub);
        break;
      case Op.And:
      case Op.Test:
        f.op(W.i64And);
        break;
      case Op.Or:
        f.op(W.i64Or);
        break;
      default:
        f.op(W.i64Xor);
    }
    this.mask(i.size);
    f.set(this.r);
    if (writes) this.writeBack(i);
    this.writeFlags(ALU_LAZY_OP[op], i.size, false);
  }

  private unary(i: Insn, op: number): void {
    const f = this.fn;
    if (op === Op.Inc || op === Op.Dec) {
      // inc/dec keep CF: the state's CF, computed before the destination is read.
      this.condition(2);
      f.set(this.keptCf);
      this.destination(i, true);
      f.set(this.d);
      f.i64(1n).set(this.s);
      f.get(this.d)
        .i64(1n)
        .op(op === Op.Inc ? W.i64Add : W.i64Sub);
      this.mask(i.size);
      f.set(this.r);
      this.writeBack(i);
      f.get(this.keptCf);
      this.writeFlags(op === Op.Inc ? LazyOp.Inc : LazyOp.Dec, i.size, true);
      return;
    }
    if (op === Op.Not) {
      // Not writes no flags: it keeps off the locals of the block's writer (a later reader's operands).
      this.destination(i, true);
      f.i64(-1n).op(W.i64Xor);
      this.mask(i.size);
      f.set(this.v);
      this.writeBack(i, this.v);
      return;
    }
    this.destination(i, true);
    f.set(this.d);
    // neg: 0 - d, flags as sub's with 0 and d as operands.
    f.i64(0n).get(this.d).op(W.i64Sub);
    this.mask(i.size);
    f.set(this.r);
    this.writeBack(i);
    f.get(this.d).set(this.s);
    f.i64(0n).set(this.d);
    this.writeFlags(LazyOp.Sub, i.size, false);
  }

  /**
   * shl/shr/sar of a register by an immediate in 1..31 (32 bits) or 1..63 (64 bits): the result, CF
   * (the last bit shifted out) and OF by the count-1 formula, recorded as LazyOp.Result, as
   * shift-semantics.ts defines them for the interpreter.
   */
  private shift(i: Insn): void {
    const f = this.fn;
    const wide = i.size === 8;
    const n = i.il & (wide ? 63 : 31);
    const bits = wide ? 64 : 32;
    const [, , fdl, fdh, fsl, fsh, frl, frh, fc, ff] = this.lazy;
    // The operand (zero-extended at 32 bits) in d; a 32-bit sar shifts its sign-extended form.
    this.getR(i.dr, i.size);
    if (!wide && i.cc === SHIFT_SAR) f.op(W.i64Extend32S);
    f.set(this.d);
    const bit = (from: () => void, at: number) => {
      from();
      f.i64(BigInt(at)).op(W.i64ShrU).op(W.i32WrapI64).i32(1).op(W.i32And);
    };
    const d = () => f.get(this.d);
    if (i.cc === SHIFT_SHL) {
      d();
      f.i64(BigInt(n)).op(W.i64Shl);
      this.mask(i.size);
      f.set(this.r);
      bit(d, bits - n);
      f.set(fc);
      bit(() => f.get(this.r), bits - 1);
      f.get(fc).op(W.i32Xor).set(ff);
    } else {
      d();
      f.i64(BigInt(n)).op(i.cc === SHIFT_SHR ? W.i64ShrU : W.i64ShrS);
      this.mask(i.size);
      f.set(this.r);
      bit(d, n - 1);
      f.set(fc);
      if (i.cc === SHIFT_SHR) bit(d, bits - 1);
      else f.i32(0);
      f.set(ff);
    }
    f.get(this.r);
    this.setR(i.dr, i.size);
    const [fo, fz] = this.lazy;
    f.i32(LazyOp.Result).set(fo).i32(i.size).set(fz);
    for (const l of [fdl, fdh, fsl, fsh]) f.i32(0).set(l);
    f.get(this.r).op(W.i32WrapI64).set(frl);
    if (wide) f.get(this.r).i64(32n).op(W.i64ShrU).op(W.i32WrapI64).set(frh);
    else f.i32(0).set(frh);
    this.cur = { kind: LazyOp.Result, size: i.size };
  }

  /** imul r, r / imul r, r, imm at 32/64 bits: the low half of the product, recorded as LazyOp.Imul. */
  private imul(i: Insn): void {
    const f = this.fn;
    this.getR(i.sr, i.size);
    f.set(this.s);
    if (i.i2 === 1) {
      f.i64((BigInt(i.ih) << 32n) | BigInt(i.il >>> 0));
      this.mask(i.size);
    } else this.getR(i.dr, i.size);
    f.set(this.d);
    f.get(this.d).get(this.s).op(W.i64Mul);
    this.mask(i.size);
    f.set(this.r);
    f.get(this.r);
    this.setR(i.dr, i.size);
    this.writeFlags(LazyOp.Imul, i.size, false);
  }

  // --- the module ------------------------------------------------------------------------------

  /** The prologue and epilogue around the body, the `cond` function, and the module's bytes. */
  private finish(): WasmRegionCode {
    const body = this.fn.code.toBytes();
    const out = WasmFunction.like(this.fn);
    const regs = () => out.get(P_REGS);
    // The registers the body uses, from R/H.
    for (const r of [...this.used].sort((a, b) => a - b)) {
      regs().mem(W.i64Load32U, 2, r * 4);
      regs()
        .mem(W.i64Load32U, 2, 64 + r * 4)
        .i64(32n)
        .op(W.i64Shl)
        .op(W.i64Or)
        .set(this.regs[r]);
    }
    // The lazy-flag record and RFLAGS from the exchange area, where a read may see them; else the
    // record's kind is -1 until a writer sets it, and the wrapper takes none back if none did.
    if (this.readsEntry) {
      this.lazy.forEach((l, k) => {
        regs()
          .mem(W.i32Load, 2, EXCHANGE + k * 4)
          .set(l);
      });
      regs()
        .mem(W.i32Load, 2, EXCHANGE + X_FLAGS * 4)
        .set(this.flags);
    } else out.i32(-1).set(this.lazy[0]);
    // The entry block's length off the budget (the blocks entered later take theirs at their jump).
    const blocks = this.plan.blocks;
    const entries = blocks.map((_, j) => j).filter((j) => this.isEntry(j));
    out.get(P_REM).set(this.rem0);
    for (const j of entries) {
      out.get(P_PC).i32(j).op(W.i32Eq).open(W.if);
      out.get(P_REM).i32(blocks[j].insns.length).op(W.i32Sub).set(P_REM);
      out.op(W.end);
    }
    out.code.bytes(body);
    // The epilogue: the registers written back, the record, RIP and the count.
    for (const r of [...this.written].sort((a, b) => a - b)) {
      regs()
        .get(this.regs[r])
        .mem(W.i64Store32, 2, r * 4);
      regs()
        .get(this.regs[r])
        .i64(32n)
        .op(W.i64ShrU)
        .mem(W.i64Store32, 2, 64 + r * 4);
    }
    this.lazy.forEach((l, k) => {
      regs()
        .get(l)
        .mem(W.i32Store, 2, EXCHANGE + k * 4);
    });
    regs()
      .get(this.nl)
      .mem(W.i32Store, 2, EXCHANGE + X_RIP_LO * 4);
    regs()
      .get(this.nh)
      .mem(W.i32Store, 2, EXCHANGE + X_RIP_HI * 4);
    regs().get(this.rem0).get(P_REM).op(W.i32Sub).get(this.xr).op(W.i32Sub);
    out.mem(W.i32Store, 2, EXCHANGE + X_RETIRED * 4);
    out.get(this.x);
    const bytes = writeModule({
      memory: { module: 'm', name: 'memory', maximum: 65536 },
      imports: [{ module: 'm', name: 'imulOverflow', params: [I32, I32, I32, I32, I32], results: [I32] }],
      functions: [
        { fn: condFunction(), export: 'cond' },
        { fn: out, export: 'run' },
      ],
    });
    return {
      bytes,
      exits: this.exitIds.size,
      entries,
      needs: entries.map((j) => blocks[j].insns.length),
      readsFlags: this.readsEntry,
    };
  }

  /** Whether block `j` is an entry: the first, a return site of one of the region's calls, or one asked for. */
  private isEntry(j: number): boolean {
    return j === 0 || this.extra.has(this.plan.blocks[j].start) || this.sites.includes(j);
  }
}
