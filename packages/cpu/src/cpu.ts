import type { AddressSpace } from './address-space.js';
import { applyContext, type CpuContext, captureContext } from './cpu-context.js';
import { CpuFault } from './cpu-fault.js';
import type { PortIo } from './cpu-system.js';
import { CpuTraps } from './cpu-traps.js';
import { ExceptionVector } from './exception-vector.js';
import { execAlu, execAluReg, execConditional, execExtend, execUnary } from './exec-alu.js';
import { execFlow } from './exec-flow.js';
import { execRare } from './exec-rare.js';
import { execShift } from './exec-shift.js';
import type { Insn } from './insn.js';
import { BlockCompiler, type BlockCompilerOptions, MAX_THRESHOLD } from './jit/block-compiler.js';
import { MAX_LEFT, type PageJit } from './jit/jit-region.js';
import { ChainStop, nextGeneration } from './jit/region-chain.js';
import { mappingEpoch } from './mapping-epoch.js';
import type { RunResult } from './run-result.js';
import { IN_LOOP, SEQUENTIAL } from './semantics/handler-result.js';

/** The empty decode cache standing for "no page cached" in the run loop. */
const NO_CODE: (Insn | null)[] = [];

/** One case of the interpreter's dispatch as a function (see Cpu.handlers); what it returns, see SEQUENTIAL. */
type Handler = (cpu: Cpu, i: Insn) => number;

/** Options of a new {@link Cpu}. */
export interface CpuOptions {
  addressSpace: AddressSpace;
  id?: number;
  io?: PortIo;
  /**
   * The block compiler: true (or its options) compiles hot code (to WebAssembly, and what its back
   * end does not take to JavaScript), false interprets everything. Default: on, unless the
   * environment says `INT3_JIT=0`; `INT3_JIT_THRESHOLD=N` sets its threshold, `INT3_JIT_WASM=0`
   * turns off its WebAssembly back end (BlockCompilerOptions.wasm).
   */
  jit?: boolean | BlockCompilerOptions;
}

/**
 * The block compiler `env` asks for (by default the process's environment; none, as in a browser,
 * leaves it on): false with `INT3_JIT=0`, else on, compiling a block head after
 * `INT3_JIT_THRESHOLD` visits when that is set (the tests set it low, so the short workloads of the
 * kernel's specs run compiled too). What a new Cpu takes when its options say nothing.
 * @throws RangeError (one line, naming the variable) for a threshold that is not 1 to MAX_THRESHOLD
 */
export function compilerFromEnvironment(
  env: Readonly<Record<string, string | undefined>> | undefined = (
    globalThis as { process?: { env?: Record<string, string | undefined> } }
  ).process?.env,
): boolean | BlockCompilerOptions {
  if (env?.INT3_JIT === '0') return false;
  const wasm = env?.INT3_JIT_WASM === '0' ? { wasm: false } : {};
  const given = env?.INT3_JIT_THRESHOLD;
  if (given === undefined || given === '') return env?.INT3_JIT_WASM === '0' ? wasm : true;
  const threshold = Number(given);
  if (!Number.isInteger(threshold) || threshold < 1 || threshold > MAX_THRESHOLD)
    throw new RangeError(
      `INT3_JIT_THRESHOLD=${given}: a whole number of visits from 1 to ${MAX_THRESHOLD} was expected`,
    );
  return { threshold, ...wasm };
}

/**
 * One long-mode x86-64 CPU: an interpreter over decoded-once instructions with lazy flags, a TLB,
 * and exceptions returned as values. Nothing is published per instruction; `traps$` reports the
 * exceptions `run()`/`step()` return.
 * @see Intel SDM Vol. 1 §3 (basic execution environment) and Vol. 3A §6 (interrupts and exceptions)
 * @example
 * const cpu = new Cpu({ addressSpace: as });
 * cpu.rip = 0x400000n;
 * const r = cpu.run(1_000_000); // { reason: 'hlt', rip } or an exception as a value
 */
export class Cpu extends CpuTraps {
  private epoch = -1;
  /**
   * Consulted when the run loop reaches a gate: true when the host handled it in place (an inline
   * host call: it moved rip, and the run goes on without leaving the loop); false, or no hook, and the
   * run exits with reason `gate`. The gate itself is no instruction: it costs nothing. The hook gets
   * the gate's decoded instruction, whose `gate` field is the hook's to cache its binding in. It may
   * run guest code on this CPU (a nested run); the loop re-derives what it caches afterwards.
   */
  gateHook: ((cpu: Cpu, gate: Insn) => boolean) | null = null;
  /**
   * Consulted when the run loop would return a #BP (`int3`, `int 3`) or a single-step #DB: true when
   * the host handled the trap in place (it may have moved rip), and the run goes on as if run() had
   * been called again (see {@link resumeAfterTrap}); false, or no hook, and the run returns the
   * exception as usual. Either way the trap was published on `traps$` first, once. The hook may run
   * guest code on this CPU (a nested run).
   */
  trapHook: ((cpu: Cpu, vector: number) => boolean) | null = null;
  /**
   * What every gate exit returns: one frozen object per CPU, so the gate path allocates nothing. Its
   * `rip` reads the CPU's (the gate's address until the CPU is moved or runs again).
   */
  private readonly gateExit: RunResult;
  /**
   * The retired and virtual counts as of the last int3 the compiled-code chain took in place
   * ({@link int3InPlace}), for the loop to renew its hard cap from; -1: none since the loop looked.
   */
  private chainTrapRetired = -1;
  private chainTrapVirtual = 0;
  /**
   * What the run returns after a chain's single-step ended it ({@link stepInPlace}): the result the
   * loop would have returned after that instruction; null: none.
   */
  private chainResult: RunResult | null = null;
  /** The block compiler, or null when this CPU only interprets. */
  readonly jit: BlockCompiler | null;

  constructor(options: CpuOptions) {
    super(options.addressSpace, options.id ?? 0);
    this.io = options.io;
    const jit = options.jit ?? compilerFromEnvironment();
    const arenaState = this.regsOffset >= 0 && this.rTlbOffset >= 0 && this.wTlbOffset >= 0;
    this.jit = jit === false ? null : new BlockCompiler(jit === true ? {} : jit, arenaState);
    const cpu = this;
    this.gateExit = Object.freeze({
      reason: 'gate' as const,
      get rip(): bigint {
        return cpu.rip;
      },
    });
  }

  /** Latches an external interrupt, taken at an instruction boundary when IF=1 (after any STI shadow). */
  raiseInterrupt(vector: number): void {
    this.pendingVector = vector & 0xff;
    this.attention = 1;
  }

  /** Executes exactly one instruction. */
  step(): RunResult {
    return this.run(Number.POSITIVE_INFINITY, 1);
  }

  /**
   * Runs until an exit. `budget` counts virtual instructions (instrumentation costs 0); `hardCap`
   * bounds all executed instructions.
   * @see Intel SDM Vol. 3A §6.9 (priority among simultaneous exceptions and interrupts)
   */
  run(budget: number, hardCap?: number): RunResult {
    this.regWrites++;
    if (this.epoch !== mappingEpoch.value) {
      this.flushTlb();
      this.epoch = mappingEpoch.value;
    }
    const virtualEnd = this.virtualCount + budget;
    const end = this.retiredCount + (hardCap ?? budget * 16 + 1e6);
    try {
      return this.loop(virtualEnd, end, hardCap === undefined);
    } catch (e) {
      if (!(e instanceof CpuFault)) throw e;
      return this.fault(e);
    }
  }

  /**
   * The interpreter loop; faults propagate to run() as thrown CpuFaults. `renewCap`: the hard cap is
   * run()'s default, which a trap resumed in place renews as a new run() would.
   */
  private loop(virtualEnd: number, end: number, renewCap: boolean): RunResult {
    let left = 0;
    // A two-page fetch cache in locals: the decode cache of the page RIP was last fetched from, and
    // of the page before it (so code calling or jumping between two pages, such as a probed function
    // and its detour buffer, alternates without a TLB lookup). `attention` (TLB flush, pending
    // interrupt) drops both, so neither outlives a permission check.
    let codeLo = 1;
    let codeHi = 0;
    let code = NO_CODE;
    let prevLo = 1;
    let prevHi = 0;
    let prev = NO_CODE;
    // A block head: the first instruction of the run, or one reached by a jump or after compiled code.
    let head = true;
    const jit = this.jit;
    // With the compiler, the loop runs cold code: it calls each case through the table of handlers
    // (see interpreter-handlers.ts for why); alone, it switches.
    const table = jit === null ? null : Cpu.handlers;
    this.attention = 1;
    for (;;) {
      if (this.attention !== 0) {
        if (this.pendingVector >= 0 && this.flags & 0x200 && this.shadowAt !== this.retiredCount) {
          const vector = this.pendingVector;
          this.pendingVector = -1;
          return { reason: 'interrupt', vector, rip: this.rip };
        }
        this.attention = this.pendingVector >= 0 ? 1 : 0;
        codeLo = 1;
        prevLo = 1;
        // Links between compiled regions hold while the fetch translations do: a TLB flush (and only
        // that changes them, see CpuCore.flushTlb) voids them all (see BlockCompiler.enter).
        if (jit !== null && jit.chain.flushes !== this.tlbFlushes) {
          jit.chain.flushes = this.tlbFlushes;
          jit.chain.gen = nextGeneration();
        }
      }
      // `left` bounds both budgets from below (each instruction costs at most 1 of either), so the
      // exact check runs only when it reaches zero.
      if (--left < 0) {
        // Capped so `left` stays a small integer (budgets may be Infinity, above 2^31 or fractional),
        // and `left + 1` below the `n` of an entry never entered (see NEVER).
        const m = Math.min(virtualEnd - this.virtualCount, end - this.retiredCount, MAX_LEFT) - 1;
        if (m < 0) return { reason: 'budget', rip: this.rip };
        left = m | 0;
      }
      const tf = this.flags & 0x100; // TF at the start of the instruction
      if (head && jit !== null && tf === 0 && this.attention === 0) {
        // Compiled code runs only at a block head, with TF clear and nothing pending (so no boundary
        // inside it is one where the interpreter would stop), and when the budget covers what its
        // entry needs (RegionEntry.n); the region leaves at the first budget check it does not pass.
        const lo = this.ripLo;
        // The fetch TLB's entry, or its victim entry (kernel text and a probe's detour buffer share a
        // slot): either translation is valid until the next flush.
        const page = this.fetchedPage(lo, this.ripHi);
        if (page !== null) {
          if (page.code !== null) {
            const pj = page.jit as PageJit | null;
            const off = lo & 0xfff;
            let region = pj === null ? null : pj.entry(off);
            // How often a head was reached lives in one small table per CPU (collisions only move
            // a compile earlier): a page gets its table of regions only once something is compiled.
            if (region === null && ++jit.heat[(lo ^ (lo >>> 12) ^ this.ripHi) & 4095] >= jit.threshold) {
              jit.heat[(lo ^ (lo >>> 12) ^ this.ripHi) & 4095] = 0;
              const table = pj ?? jit.pageJit(page);
              jit.compile(page, table, lo & -4096, this.ripHi, off, this);
              region = table.entry(off);
            }
            // `left + 1` instructions fit both budgets (see below): the region, and those it chains
            // into, get that much.
            if (region !== null && region.n <= left + 1) {
              jit.innerRun = 0;
              left -= jit.chain.enter(this, region, left + 1, this.gateHook) - 1;
              if (this.chainTrapRetired >= 0) {
                // An int3 the chain ran took its #BP in place: as after one here (below), the budget
                // is re-derived and a default hard cap renewed as of that trap.
                if (renewCap) end = this.chainTrapRetired + (virtualEnd - this.chainTrapVirtual) * 16 + 1e6;
                this.chainTrapRetired = -1;
                left = 0;
              }
              const stop = jit.chain.stop;
              if (stop !== ChainStop.None) {
                jit.chain.stop = ChainStop.None;
                if (stop === ChainStop.GateExit) return this.gateExit;
                if (stop === ChainStop.TrapExit)
                  return this.exceptionResult(ExceptionVector.Breakpoint, undefined, undefined, false);
                if (stop === ChainStop.Result) {
                  const result = this.chainResult as RunResult;
                  this.chainResult = null;
                  return result;
                }
                if (stop === ChainStop.Interpret) head = false;
                else if (stop !== ChainStop.TrapHandled) {
                  // A gate run in place, as at Op.Gate below.
                  if (this.epoch !== mappingEpoch.value) {
                    this.flushTlb();
                    this.epoch = mappingEpoch.value;
                  }
                  codeLo = 1;
                  prevLo = 1;
                  left = 0;
                }
              }
              continue;
            }
            // An inner entry: interpreted up to the region's next entry, until reached often.
            if (region !== null && region.block < 0) jit.reached(page, region, lo & -4096, this.ripHi, this);
          }
        }
      }
      head = false;
      const lo = this.ripLo;
      let insn = (lo & -4096) === codeLo && this.ripHi === codeHi ? code[lo & 0xfff] : null;
      if (insn === null) {
        const page = lo & -4096;
        const hi = this.ripHi;
        const back = page === prevLo && hi === prevHi ? prev[lo & 0xfff] : null;
        if (back !== null) {
          // Back on the page before: the two entries swap.
          insn = back;
          const c = code;
          code = prev;
          prev = c;
          prevLo = codeLo;
          prevHi = codeHi;
          codeLo = page;
          codeHi = hi;
        } else {
          insn = this.fetch();
          // A gate is no instruction and leads elsewhere: its page is not worth an entry.
          if (insn.op !== 1 /* Op.Gate */) {
            if (page !== codeLo || hi !== codeHi) {
              prev = code;
              prevLo = codeLo;
              prevHi = codeHi;
            }
            code = this.fPage[(lo >>> 12) & 255].code ?? NO_CODE;
            codeLo = page;
            codeHi = hi;
          }
        }
      }
      const i = insn;
      let exit = 0;
      let seq = true;
      // Alone, the interpreter dispatches the hot instructions inline (no call per instruction) and the
      // rest to execRare; with the compiler, through the table of the same cases as functions.
      // @generated-begin: scripts/gen-dispatch.mjs writes this switch from src/semantics/interpreter-dispatch.ts
      // A CPU with the compiler calls its case in the table of handlers (interpreter-handlers.ts:
      // the same statements), except for the ops the loop runs itself; the interpreter alone switches.
      const r = table === null ? -2 : table[i.op](this, i);
      if (r === -2) {
        // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
        switch (i.op) {
          case 1 /* Op.Gate */:
            {
              const flushes = this.tlbFlushes;
              if (this.gateHook?.(this, i)) {
                // Handled in place. The host may have changed mappings (caught here, as run() would) or
                // run guest code on this CPU (a nested run: its TLB flushes drop the local fetch cache,
                // and its instructions count), so re-derive the budget, then go on at the new rip.
                if (this.epoch !== mappingEpoch.value) {
                  this.flushTlb();
                  this.epoch = mappingEpoch.value;
                }
                if (this.tlbFlushes !== flushes) {
                  codeLo = 1;
                  prevLo = 1;
                }
                left = 0;
                head = true;
                continue;
              }
              return this.gateExit;
            }
          case 95 /* Op.DebugStop */:
            this.atDebugStop = true;
            return { reason: 'budget', rip: this.rip };
          case 91 /* Op.AluReg */:
            if (i.i2 !== 13 /* Op.Adc */ && i.i2 !== 14 /* Op.Sbb */) {
              // The commonest instructions of gcc output, inline: add/sub/cmp/and/or/xor/test on a
              // 32/64-bit register with a register, immediate or memory source (no carry in). The
              // source is read before anything is written, so a faulting load changes nothing.
              const R = this.R;
              const H = this.H;
              const d = i.dr;
              const w = i.size === 8;
              const dl = R[d];
              const dh = w ? H[d] : 0;
              let sl: number;
              let sh: number;
              if (i.sk === 3 /* OperandKind.Imm */) {
                sl = i.il;
                sh = i.ih;
              } else if (i.sk === 1 /* OperandKind.Reg */) {
                sl = R[i.sr];
                sh = w ? H[i.sr] : 0;
              } else if (w) {
                sl = this.rd64(this.ea(i), this.eah);
                sh = this.vh;
              } else {
                sl = this.rd32(this.ea(i), this.eah);
                sh = 0;
              }
              let rl: number;
              let rh = 0;
              switch (i.i2) {
                case 11 /* Op.Add */:
                  {
                    const l = (dl >>> 0) + (sl >>> 0);
                    rl = l | 0;
                    if (w) rh = (dh + sh + (l > 0xffffffff ? 1 : 0)) | 0;
                    this.lop = 1 /* LazyOp.Add */;
                    break;
                  }
                case 16 /* Op.Sub */:
                case 18 /* Op.Cmp */:
                  {
                    const l = (dl >>> 0) - (sl >>> 0);
                    rl = l | 0;
                    if (w) rh = (dh - sh - (l < 0 ? 1 : 0)) | 0;
                    this.lop = 2 /* LazyOp.Sub */;
                    break;
                  }
                case 12 /* Op.Or */:
                  rl = dl | sl;
                  rh = dh | sh;
                  this.lop = 3 /* LazyOp.Logic */;
                  break;
                case 17 /* Op.Xor */:
                  rl = dl ^ sl;
                  rh = dh ^ sh;
                  this.lop = 3 /* LazyOp.Logic */;
                  break;
                default:
                  rl = dl & sl;
                  rh = dh & sh;
                  this.lop = 3 /* LazyOp.Logic */;
              }
              if (i.i2 !== 18 /* Op.Cmp */ && i.i2 !== 19 /* Op.Test */) {
                R[d] = rl;
                H[d] = rh;
              }
              this.lsz = i.size;
              this.ldl = dl;
              this.ldh = dh;
              this.lsl = sl;
              this.lsh = sh;
              this.lrl = rl;
              this.lrh = rh;
              this.lcf = 0;
              break;
            }
            execAluReg(this, i);
            seq = false;
            break;
          case 2 /* Op.Nop */:
            break;
          case 3 /* Op.MovRR */:
            if (i.size === 8) { this.R[i.dr] = this.R[i.sr]; this.H[i.dr] = this.H[i.sr]; }
            else if (i.size === 4) { this.R[i.dr] = this.R[i.sr]; this.H[i.dr] = 0; }
            else this.setR(i.dr, i.size, this.getR(i.sr, i.size), 0);
            break;
          case 4 /* Op.MovRI */:
            // The immediate's high half is already 0 at 32 bits.
            if (i.size >= 4) { this.R[i.dr] = i.il; this.H[i.dr] = i.ih; }
            else this.setR(i.dr, i.size, i.il, i.ih);
            break;
          case 5 /* Op.MovRM */:
            {
              const R = this.R;
              const H = this.H;
              let a: number;
              let ah: number;
              if (i.mf === 1 /* MemoryForm.Base */) {
                // CpuCore.ea's base + disp form, inline.
                const x = (i.ml >>> 0) + (R[i.mb] >>> 0);
                ah = (i.mh + H[i.mb] + (x > 0xffffffff ? 1 : 0)) | 0;
                a = x | 0;
              } else {
                a = this.ea(i);
                ah = this.eah;
              }
              if (i.size === 8) {
                // CpuCore.rd64's TLB hit, inline.
                const t = ((a >>> 12) ^ ah) & 255, off = a & 0xfff;
                let lo: number;
                let hi: number;
                if (this.rTagLo[t] === (a & -4096) && this.rTagHi[t] === ah && off <= 4088) {
                  const v = this.rPage[t].view;
                  lo = v.getInt32(off, true);
                  hi = v.getInt32(off + 4, true);
                } else {
                  lo = this.rd64(a, ah);
                  hi = this.vh;
                }
                R[i.dr] = lo; H[i.dr] = hi;
              } else if (i.size === 4) { R[i.dr] = this.rd32(a, ah); H[i.dr] = 0; }
              else this.setR(i.dr, i.size, this.load(a, ah, i.size), 0);
              break;
            }
          case 6 /* Op.MovMR */:
            {
              let a: number;
              let ah: number;
              if (i.mf === 1 /* MemoryForm.Base */) {
                // CpuCore.ea's base + disp form, inline.
                const x = (i.ml >>> 0) + (this.R[i.mb] >>> 0);
                ah = (i.mh + this.H[i.mb] + (x > 0xffffffff ? 1 : 0)) | 0;
                a = x | 0;
              } else {
                a = this.ea(i);
                ah = this.eah;
              }
              const size = i.size;
              if (size === 8) this.wr64(a, ah, this.R[i.sr], this.H[i.sr]);
              else if (size === 4) this.wr32(a, ah, this.R[i.sr]);
              else if (size === 2) this.wr16(a, ah, this.R[i.sr] & 0xffff);
              else this.wr8(a, ah, this.getR(i.sr, 1));
              break;
            }
          case 7 /* Op.MovMI */:
            if (i.mf === 1 /* MemoryForm.Base */ && i.size === 8) {
              // mov qword [base + disp], imm32: CpuCore.ea's base + disp form, inline.
              const x = (i.ml >>> 0) + (this.R[i.mb] >>> 0);
              this.wr64(x | 0, (i.mh + this.H[i.mb] + (x > 0xffffffff ? 1 : 0)) | 0, i.il, i.ih);
              break;
            }
            this.store(this.ea(i), this.eah, i.size, i.il, i.ih);
            break;
          case 10 /* Op.Lea */:
            {
              const R = this.R;
              const H = this.H;
              const mf = i.mf;
              if (i.size >= 4 && mf <= 2) {
                // CpuCore.ea's base + disp and base + index * scale + disp forms, inline (a 32-bit
                // destination keeps the low half and zeroes the high one).
                const b = i.mb;
                const w = i.size === 8;
                if (mf === 2 /* MemoryForm.BaseIndex */) {
                  const n = i.mi;
                  const s = i.ms;
                  const x = (R[n] >>> 0) * s + (R[b] >>> 0) + (i.ml >>> 0);
                  H[i.dr] = w ? (i.mh + H[b] + Math.imul(H[n], s) + ((x / 4294967296) | 0)) | 0 : 0;
                  R[i.dr] = x | 0;
                  break;
                }
                if (mf === 1 /* MemoryForm.Base */) {
                  const x = (i.ml >>> 0) + (R[b] >>> 0);
                  H[i.dr] = w ? (i.mh + H[b] + (x > 0xffffffff ? 1 : 0)) | 0 : 0;
                  R[i.dr] = x | 0;
                  break;
                }
              }
              const a = this.ea(i);
              if (i.size === 8) { R[i.dr] = a; H[i.dr] = this.eah; }
              else this.setR(i.dr, i.size, a, 0);
              break;
            }
          case 8 /* Op.Movzx */:
            {
              let v: number;
              if (i.sk === 1 /* OperandKind.Reg */) v = this.getR(i.sr, i.size2);
              else if (i.mf === 1 /* MemoryForm.Base */ && i.size2 === 1) {
                // movzx r, byte [base + disp]: CpuCore.ea and rd8's TLB hit, inline.
                const x = (i.ml >>> 0) + (this.R[i.mb] >>> 0);
                const ah = (i.mh + this.H[i.mb] + (x > 0xffffffff ? 1 : 0)) | 0;
                const a = x | 0;
                const t = ((a >>> 12) ^ ah) & 255, off = a & 0xfff;
                v = this.rTagLo[t] === (a & -4096) && this.rTagHi[t] === ah ? this.rPage[t].data[off] : this.rd8(a, ah);
              } else {
                const a = this.ea(i);
                v = i.size2 === 1 ? this.rd8(a, this.eah) : this.rd16(a, this.eah);
              }
              if (i.size >= 4) { this.R[i.dr] = v; this.H[i.dr] = 0; }
              else this.setR(i.dr, i.size, v, 0);
              break;
            }
          case 9 /* Op.Movsx */:
            execExtend(this, i);
            seq = false;
            break;
          case 18 /* Op.Cmp */:
            if (i.dk === 1 /* OperandKind.Reg */ && i.sk !== 2 /* OperandKind.Mem */) {
              // cmp r8/r16, r/imm (32/64-bit register forms are AluReg): operands are zero-extended.
              const size = i.size;
              const dl = this.getR(i.dr, size);
              const sl = i.sk === 3 /* OperandKind.Imm */ ? i.il : this.getR(i.sr, size);
              const rl = (dl - sl) & (size === 1 ? 0xff : 0xffff);
              this.lop = 2 /* LazyOp.Sub */;
              this.lsz = size;
              this.ldl = dl;
              this.ldh = 0;
              this.lsl = sl;
              this.lsh = 0;
              this.lrl = rl;
              this.lrh = 0;
              this.lcf = 0;
              break;
            }
            execAlu(this, i);
            seq = false;
            break;
          case 11 /* Op.Add */:
          case 12 /* Op.Or */:
          case 13 /* Op.Adc */:
          case 14 /* Op.Sbb */:
          case 15 /* Op.And */:
          case 16 /* Op.Sub */:
          case 17 /* Op.Xor */:
          case 19 /* Op.Test */:
            execAlu(this, i);
            seq = false;
            break;
          case 23 /* Op.Neg */:
            if (i.dk === 1 /* OperandKind.Reg */ && i.size >= 4) {
              // neg r32/r64: 0 - dst with lazy flags (CF = dst != 0 falls out of LazyOp.Sub).
              const R = this.R;
              const H = this.H;
              const d = i.dr;
              const w = i.size === 8;
              const dl = R[d];
              const dh = w ? H[d] : 0;
              const rl = -dl | 0;
              const rh = w ? (~dh + (dl === 0 ? 1 : 0)) | 0 : 0;
              R[d] = rl;
              H[d] = rh;
              this.lop = 2 /* LazyOp.Sub */;
              this.lsz = i.size;
              this.ldl = 0;
              this.ldh = 0;
              this.lsl = dl;
              this.lsh = dh;
              this.lrl = rl;
              this.lrh = rh;
              this.lcf = 0;
              break;
            }
            execUnary(this, i);
            seq = false;
            break;
          case 20 /* Op.Inc */:
          case 21 /* Op.Dec */:
          case 22 /* Op.Not */:
            execUnary(this, i);
            seq = false;
            break;
          case 39 /* Op.Jcc */:
            if (this.cond(i.cc)) {
              this.ripLo = i.tl;
              this.ripHi = i.th;
              seq = false;
              break;
            }
            break;
          case 37 /* Op.Jmp */:
            this.ripLo = i.tl;
            this.ripHi = i.th;
            seq = false;
            break;
          case 34 /* Op.Call */:
            this.push64(i.nl, i.nh);
            this.ripLo = i.tl;
            this.ripHi = i.th;
            seq = false;
            break;
          case 36 /* Op.Ret */:
            {
              const t = this.rd64(this.R[4], this.H[4]);
              const th = this.vh;
              this.popCommit(8 + i.il);
              this.ripLo = t;
              this.ripHi = th;
              seq = false;
              break;
            }
          case 32 /* Op.Push */:
            if (i.size === 8 && i.sk === 1 /* OperandKind.Reg */) {
              this.push64(this.R[i.sr], this.H[i.sr]);
              break;
            }
            execFlow(this, i);
            seq = false;
            break;
          case 33 /* Op.Pop */:
            if (i.size === 8 && i.dk === 1 /* OperandKind.Reg */) {
              const lo = this.rd64(this.R[4], this.H[4]);
              const hi = this.vh;
              this.popCommit(8);
              this.R[i.dr] = lo; this.H[i.dr] = hi;
              break;
            }
            execFlow(this, i);
            seq = false;
            break;
          case 35 /* Op.CallInd */:
          case 38 /* Op.JmpInd */:
          case 42 /* Op.Leave */:
          case 89 /* Op.Jrcxz */:
          case 90 /* Op.Loop */:
            execFlow(this, i);
            seq = false;
            break;
          case 43 /* Op.Cbw */:
            {
              const l = this.R[0];
              if (i.size === 2) this.setR(0, 2, ((l << 24) >> 24), 0);
              else if (i.size === 4) this.setR(0, 4, ((l << 16) >> 16), 0);
              else this.setR(0, 8, l, (l >> 31));
              break;
            }
          case 44 /* Op.Cwd */:
            {
              const l = this.R[0];
              const h = this.H[0];
              if (i.size === 2) this.setR(2, 2, ((l << 16) >> 31), 0);
              else if (i.size === 4) this.setR(2, 4, (l >> 31), 0);
              else this.setR(2, 8, (h >> 31), (h >> 31));
              break;
            }
          case 40 /* Op.Setcc */:
            if (i.dk === 1 /* OperandKind.Reg */ && i.dr < 16) {
              // setcc r8 (not AH..BH): merge 0/1 into the low byte.
              this.R[i.dr] = (this.R[i.dr] & ~0xff) | ((this.cond(i.cc) ? 1 : 0) & 0xff);
              break;
            }
            execConditional(this, i);
            seq = false;
            break;
          case 41 /* Op.Cmovcc */:
            if (i.sk === 1 /* OperandKind.Reg */ && i.size >= 4) {
              // cmovcc r32/r64, r: a 32-bit destination is zero-extended even when nothing moves.
              const w = i.size === 8;
              if (this.cond(i.cc)) { this.R[i.dr] = this.R[i.sr]; this.H[i.dr] = w ? this.H[i.sr] : 0; }
              else if (i.size === 4) this.H[i.dr] = 0;
              break;
            }
            execConditional(this, i);
            seq = false;
            break;
          case 24 /* Op.Shift */:
            if (i.dk === 1 /* OperandKind.Reg */ && i.sk === 3 /* OperandKind.Imm */ && i.cc >= 4) {
              // shl/shr/sar r32/r64, imm (not 0), inline: CF = last bit out, OF as the count-1 formula gives it.
              const d = i.dr;
              const l = this.R[d];
              if (i.size === 4) {
                const n = i.il & 31;
                if (n !== 0) {
                  let rl: number;
                  let cf: number;
                  let of: number;
                  if (i.cc === 4) {
                    rl = l << n;
                    cf = (l >>> (32 - n)) & 1;
                    of = (rl >>> 31) ^ cf;
                  } else if (i.cc === 5) {
                    rl = (l >>> n) | 0;
                    cf = (l >>> (n - 1)) & 1;
                    of = l >>> 31;
                  } else {
                    rl = l >> n;
                    cf = (l >> (n - 1)) & 1;
                    of = 0;
                  }
                  this.R[d] = rl;
                  this.H[d] = 0;
                  this.lop = 6 /* LazyOp.Result */;
                  this.lsz = 4;
                  this.lrl = rl;
                  this.lrh = 0;
                  this.lcf = cf;
                  this.lof = of;
                  break;
                }
              } else if (i.size === 8) {
                const n = i.il & 63;
                if (n !== 0) {
                  const h = this.H[d];
                  let rl: number;
                  let rh: number;
                  let cf: number;
                  let of: number;
                  if (i.cc === 4) {
                    if (n < 32) {
                      rl = l << n;
                      rh = (h << n) | (l >>> (32 - n));
                      cf = (h >>> (32 - n)) & 1;
                      of = (rh >>> 31) ^ cf;
                    } else {
                      rl = 0;
                      rh = l << (n - 32);
                      cf = ((n === 32 ? h : l >>> (64 - n)) & 1);
                      of = (rh >>> 31) ^ cf;
                    }
                  } else if (i.cc === 5) {
                    if (n < 32) {
                      rl = (l >>> n) | (h << (32 - n));
                      rh = (h >>> n) | 0;
                      cf = (l >>> (n - 1)) & 1;
                      of = h >>> 31;
                    } else {
                      rl = (h >>> (n - 32)) | 0;
                      rh = 0;
                      cf = ((n === 32 ? l >>> 31 : h >>> (n - 33)) & 1);
                      of = h >>> 31;
                    }
                  } else {
                    if (n < 32) {
                      rl = (l >>> n) | (h << (32 - n));
                      rh = h >> n;
                      cf = (l >>> (n - 1)) & 1;
                      of = 0;
                    } else {
                      rl = h >> (n - 32);
                      rh = h >> 31;
                      cf = ((n === 32 ? l >>> 31 : h >>> (n - 33)) & 1);
                      of = 0;
                    }
                  }
                  this.R[d] = rl;
                  this.H[d] = rh;
                  this.lop = 6 /* LazyOp.Result */;
                  this.lsz = 8;
                  this.lrl = rl;
                  this.lrh = rh;
                  this.lcf = cf;
                  this.lof = of;
                  break;
                }
              }
            }
            execShift(this, i);
            seq = false;
            break;
          case 28 /* Op.Imul2 */:
            if (i.sk === 1 /* OperandKind.Reg */ && i.size >= 4) {
              // imul r, r / imul r, r, imm at 32/64 bits: the low bits only, CF/OF lazy (LazyOp.Imul).
              const R = this.R;
              const H = this.H;
              const w = i.size === 8;
              const bl = R[i.sr];
              const bh = w ? H[i.sr] : 0;
              const al = i.i2 === 1 ? i.il : R[i.dr];
              const ah = i.i2 === 1 ? i.ih : w ? H[i.dr] : 0;
              const rl = Math.imul(al, bl);
              const rh = w ? ((Math.imul(al >>> 16, bl >>> 16) + (((Math.imul(al >>> 16, bl & 65535) >>> 0) + (Math.imul(al & 65535, bl & 65535) >>> 16)) >>> 16) + (((Math.imul(al & 65535, bl >>> 16) >>> 0) + (((Math.imul(al >>> 16, bl & 65535) >>> 0) + (Math.imul(al & 65535, bl & 65535) >>> 16)) & 65535)) >>> 16)) + Math.imul(al, bh) + Math.imul(ah, bl)) | 0 : 0;
              R[i.dr] = rl;
              H[i.dr] = rh;
              this.lop = 7 /* LazyOp.Imul */;
              this.lsz = i.size;
              this.ldl = al;
              this.ldh = ah;
              this.lsl = bl;
              this.lsh = bh;
              this.lrl = rl;
              this.lrh = rh;
              break;
            }
            exit = execRare(this, i);
            seq = false;
            break;
          default:
            exit = execRare(this, i);
            seq = false;
            break;
        }
      } else if (r >= 0) {
        exit = r;
        seq = false;
      }
      // @generated-end
      if (seq) {
        this.ripLo = i.nl;
        this.ripHi = i.nh;
      } else head = true;
      this.retiredCount++;
      this.virtualCount += insn.cost & this.costMask;
      let resumed: number;
      if (exit !== 0) {
        if (exit === 1) return { reason: 'hlt', rip: this.rip };
        const vector = this.trapVector;
        if (vector !== ExceptionVector.Breakpoint || this.trapHook === null) {
          return this.exception(vector, undefined, undefined, false);
        }
        resumed = this.resumeAfterTrap(vector);
        if (resumed === 0) return this.exceptionResult(vector, undefined, undefined, false);
      } else if (tf !== 0 && (insn.op !== 75 /* Op.Syscall */ || this.flags & 0x100)) {
        if (this.trapHook === null) return this.exception(ExceptionVector.Debug, undefined, undefined, true);
        resumed = this.resumeAfterTrap(ExceptionVector.Debug);
        if (resumed === 0) return this.exceptionResult(ExceptionVector.Debug, undefined, undefined, true);
      } else continue;
      // A trap the host took in place: the loop goes on as the host's next run() would, with the same
      // budget end (and a default hard cap renewed as that run() would compute it), at a block head.
      // The local fetch cache stays unless the TLB was flushed: the host's writes to code drop the
      // decoded instructions from the very arrays it holds.
      if (renewCap) end = this.retiredCount + (virtualEnd - this.virtualCount) * 16 + 1e6;
      if (resumed === 2) {
        codeLo = 1;
        prevLo = 1;
      }
      left = 0;
      head = true;
    }
  }

  /**
   * Runs the `int3` `i` at RIP for the compiled-code chain (an int3 heads a region of its own, see
   * RegionChain) exactly as the loop runs one: it retires with RIP after it, then its #BP is
   * published and offered to {@link trapHook}. 0: not taken in place (the loop returns the #BP,
   * already published); 1: taken, and the chain may go on at the new RIP; 2: taken, but something
   * needs attention (a pending interrupt) or guest code ran meanwhile, TF set or not (the loop looks
   * first); 3: taken, and the TLB was flushed or the mappings changed (the loop drops its fetch
   * cache); 4: taken, and TF is set but nothing else changed (the chain may single-step, see
   * {@link stepInPlace}). When taken, the counts as of the trap are kept for the loop, which renews
   * its default hard cap from them as after a trap of its own.
   */
  int3InPlace(i: Insn): number {
    this.trapVector = ExceptionVector.Breakpoint;
    this.ripLo = i.nl;
    this.ripHi = i.nh;
    this.retiredCount++;
    this.virtualCount += i.cost & this.costMask;
    if (this.trapHook === null) {
      this.publishTrap(ExceptionVector.Breakpoint, undefined, undefined);
      return 0;
    }
    const retired = this.retiredCount;
    const virtual = this.virtualCount;
    const resumed = this.resumeAfterTrap(ExceptionVector.Breakpoint);
    if (resumed === 0) return 0;
    return this.takenInPlace(resumed, retired, virtual, 4);
  }

  /**
   * Runs the instruction at RIP with TF set for the compiled-code chain, after an int3 it took in
   * place whose host set TF (a kprobe single-stepping its copied instruction, {@link int3InPlace}'s
   * 4), exactly as the loop runs one: it retires, then its single-step #DB (or the #BP it raised) is
   * published and offered to {@link trapHook}. Answers as int3InPlace does (1, 2 or 3), or -1 when it
   * ran nothing (a gate, a debug stop or a syscall: the loop runs those itself), or 5 when the run
   * ends there: the loop returns {@link chainResult}, what it would have returned itself. A fault
   * propagates from here as from the loop.
   */
  stepInPlace(): number {
    const i = this.fetch();
    if (i.op === 75 /* Op.Syscall */) return -1;
    const r = (Cpu.handlers[i.op] as Handler)(this, i);
    if (r === IN_LOOP) return -1;
    if (r === SEQUENTIAL) {
      this.ripLo = i.nl;
      this.ripHi = i.nh;
    }
    this.retiredCount++;
    this.virtualCount += i.cost & this.costMask;
    // As after the loop's instruction: an exit of its own (hlt, a trap it raised) first, else TF's #DB.
    const vector = r > 0 ? this.trapVector : ExceptionVector.Debug;
    const step = r <= 0;
    if (r === 1) return this.endRun({ reason: 'hlt', rip: this.rip });
    if ((!step && vector !== ExceptionVector.Breakpoint) || this.trapHook === null)
      return this.endRun(this.exception(vector, undefined, undefined, step));
    const retired = this.retiredCount;
    const virtual = this.virtualCount;
    const resumed = this.resumeAfterTrap(vector);
    if (resumed === 0) return this.endRun(this.exceptionResult(vector, undefined, undefined, step));
    return this.takenInPlace(resumed, retired, virtual, 2);
  }

  /**
   * The chain's answer after a trap the host took in place (`resumed`, see resumeAfterTrap), whose
   * counts were `retired` and `virtual` when it was offered: the counts kept for the loop's hard cap,
   * then 3 after a TLB flush, 2 when guest code ran meanwhile or something needs attention, `tf`
   * when only TF is set, else 1 (see int3InPlace).
   */
  private takenInPlace(resumed: number, retired: number, virtual: number, tf: number): number {
    this.chainTrapRetired = this.retiredCount;
    this.chainTrapVirtual = this.virtualCount;
    if (resumed === 2) return 3;
    if (this.retiredCount !== retired || this.virtualCount !== virtual || this.attention !== 0) return 2;
    return (this.flags & 0x100) === 0 ? 1 : tf;
  }

  /** Leaves `result` for the loop to return once the chain stops (see {@link stepInPlace}). */
  private endRun(result: RunResult): number {
    this.chainResult = result;
    return 5;
  }

  /**
   * A #BP or single-step #DB at RIP: published on `traps$`, then offered to {@link trapHook}. 0 when
   * the host did not take it; 1 when it handled it in place, 2 when it did and the TLB was flushed
   * meanwhile (by the host, a nested run, or here: the mappings are caught up as run() does on entry).
   * What else a new run() looks at first needs no forcing: a pending interrupt keeps `attention`
   * raised until it is taken, so the loop checks it before the next instruction as the new run() would.
   */
  private resumeAfterTrap(vector: number): number {
    const flushes = this.tlbFlushes;
    this.publishTrap(vector, undefined, undefined);
    if (!(this.trapHook as (cpu: Cpu, vector: number) => boolean)(this, vector)) return 0;
    if (this.epoch !== mappingEpoch.value) {
      this.flushTlb();
      this.epoch = mappingEpoch.value;
    }
    return this.tlbFlushes === flushes ? 1 : 2;
  }

  /** The full register file as plain, deep-copied data. */
  saveContext(): CpuContext {
    return captureContext(this);
  }

  /** Restores a context produced by saveContext (of this or another CPU). */
  restoreContext(c: CpuContext): void {
    applyContext(this, c);
  }

  // @generated-begin: scripts/gen-dispatch.mjs writes these handlers from src/semantics/interpreter-handlers.ts
  /** The entry of the ops the loop runs itself. */
  private static inLoop(): number {
    return -2;
  }
  /** The dispatch's case for Op.AluReg. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opAluReg(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (i.i2 !== 13 /* Op.Adc */ && i.i2 !== 14 /* Op.Sbb */) {
          // The commonest instructions of gcc output, inline: add/sub/cmp/and/or/xor/test on a
          // 32/64-bit register with a register, immediate or memory source (no carry in). The
          // source is read before anything is written, so a faulting load changes nothing.
          const R = cpu.R;
          const H = cpu.H;
          const d = i.dr;
          const w = i.size === 8;
          const dl = R[d];
          const dh = w ? H[d] : 0;
          let sl: number;
          let sh: number;
          if (i.sk === 3 /* OperandKind.Imm */) {
            sl = i.il;
            sh = i.ih;
          } else if (i.sk === 1 /* OperandKind.Reg */) {
            sl = R[i.sr];
            sh = w ? H[i.sr] : 0;
          } else if (w) {
            sl = cpu.rd64(cpu.ea(i), cpu.eah);
            sh = cpu.vh;
          } else {
            sl = cpu.rd32(cpu.ea(i), cpu.eah);
            sh = 0;
          }
          let rl: number;
          let rh = 0;
          switch (i.i2) {
            case 11 /* Op.Add */:
              {
                const l = (dl >>> 0) + (sl >>> 0);
                rl = l | 0;
                if (w) rh = (dh + sh + (l > 0xffffffff ? 1 : 0)) | 0;
                cpu.lop = 1 /* LazyOp.Add */;
                break;
              }
            case 16 /* Op.Sub */:
            case 18 /* Op.Cmp */:
              {
                const l = (dl >>> 0) - (sl >>> 0);
                rl = l | 0;
                if (w) rh = (dh - sh - (l < 0 ? 1 : 0)) | 0;
                cpu.lop = 2 /* LazyOp.Sub */;
                break;
              }
            case 12 /* Op.Or */:
              rl = dl | sl;
              rh = dh | sh;
              cpu.lop = 3 /* LazyOp.Logic */;
              break;
            case 17 /* Op.Xor */:
              rl = dl ^ sl;
              rh = dh ^ sh;
              cpu.lop = 3 /* LazyOp.Logic */;
              break;
            default:
              rl = dl & sl;
              rh = dh & sh;
              cpu.lop = 3 /* LazyOp.Logic */;
          }
          if (i.i2 !== 18 /* Op.Cmp */ && i.i2 !== 19 /* Op.Test */) {
            R[d] = rl;
            H[d] = rh;
          }
          cpu.lsz = i.size;
          cpu.ldl = dl;
          cpu.ldh = dh;
          cpu.lsl = sl;
          cpu.lsh = sh;
          cpu.lrl = rl;
          cpu.lrh = rh;
          cpu.lcf = 0;
          break;
        }
        execAluReg(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Nop. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opNop(_cpu: Cpu, _i: Insn): number {
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        break;
    }
    return -1;
  }
  /** The dispatch's case for Op.MovRR. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opMovRR(cpu: Cpu, i: Insn): number {
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (i.size === 8) { cpu.R[i.dr] = cpu.R[i.sr]; cpu.H[i.dr] = cpu.H[i.sr]; }
        else if (i.size === 4) { cpu.R[i.dr] = cpu.R[i.sr]; cpu.H[i.dr] = 0; }
        else cpu.setR(i.dr, i.size, cpu.getR(i.sr, i.size), 0);
        break;
    }
    return -1;
  }
  /** The dispatch's case for Op.MovRI. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opMovRI(cpu: Cpu, i: Insn): number {
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        // The immediate's high half is already 0 at 32 bits.
        if (i.size >= 4) { cpu.R[i.dr] = i.il; cpu.H[i.dr] = i.ih; }
        else cpu.setR(i.dr, i.size, i.il, i.ih);
        break;
    }
    return -1;
  }
  /** The dispatch's case for Op.MovRM. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opMovRM(cpu: Cpu, i: Insn): number {
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        {
          const R = cpu.R;
          const H = cpu.H;
          let a: number;
          let ah: number;
          if (i.mf === 1 /* MemoryForm.Base */) {
            // CpuCore.ea's base + disp form, inline.
            const x = (i.ml >>> 0) + (R[i.mb] >>> 0);
            ah = (i.mh + H[i.mb] + (x > 0xffffffff ? 1 : 0)) | 0;
            a = x | 0;
          } else {
            a = cpu.ea(i);
            ah = cpu.eah;
          }
          if (i.size === 8) {
            // CpuCore.rd64's TLB hit, inline.
            const t = ((a >>> 12) ^ ah) & 255, off = a & 0xfff;
            let lo: number;
            let hi: number;
            if (cpu.rTagLo[t] === (a & -4096) && cpu.rTagHi[t] === ah && off <= 4088) {
              const v = cpu.rPage[t].view;
              lo = v.getInt32(off, true);
              hi = v.getInt32(off + 4, true);
            } else {
              lo = cpu.rd64(a, ah);
              hi = cpu.vh;
            }
            R[i.dr] = lo; H[i.dr] = hi;
          } else if (i.size === 4) { R[i.dr] = cpu.rd32(a, ah); H[i.dr] = 0; }
          else cpu.setR(i.dr, i.size, cpu.load(a, ah, i.size), 0);
          break;
        }
    }
    return -1;
  }
  /** The dispatch's case for Op.MovMR. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opMovMR(cpu: Cpu, i: Insn): number {
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        {
          let a: number;
          let ah: number;
          if (i.mf === 1 /* MemoryForm.Base */) {
            // CpuCore.ea's base + disp form, inline.
            const x = (i.ml >>> 0) + (cpu.R[i.mb] >>> 0);
            ah = (i.mh + cpu.H[i.mb] + (x > 0xffffffff ? 1 : 0)) | 0;
            a = x | 0;
          } else {
            a = cpu.ea(i);
            ah = cpu.eah;
          }
          const size = i.size;
          if (size === 8) cpu.wr64(a, ah, cpu.R[i.sr], cpu.H[i.sr]);
          else if (size === 4) cpu.wr32(a, ah, cpu.R[i.sr]);
          else if (size === 2) cpu.wr16(a, ah, cpu.R[i.sr] & 0xffff);
          else cpu.wr8(a, ah, cpu.getR(i.sr, 1));
          break;
        }
    }
    return -1;
  }
  /** The dispatch's case for Op.MovMI. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opMovMI(cpu: Cpu, i: Insn): number {
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (i.mf === 1 /* MemoryForm.Base */ && i.size === 8) {
          // mov qword [base + disp], imm32: CpuCore.ea's base + disp form, inline.
          const x = (i.ml >>> 0) + (cpu.R[i.mb] >>> 0);
          cpu.wr64(x | 0, (i.mh + cpu.H[i.mb] + (x > 0xffffffff ? 1 : 0)) | 0, i.il, i.ih);
          break;
        }
        cpu.store(cpu.ea(i), cpu.eah, i.size, i.il, i.ih);
        break;
    }
    return -1;
  }
  /** The dispatch's case for Op.Lea. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opLea(cpu: Cpu, i: Insn): number {
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        {
          const R = cpu.R;
          const H = cpu.H;
          const mf = i.mf;
          if (i.size >= 4 && mf <= 2) {
            // CpuCore.ea's base + disp and base + index * scale + disp forms, inline (a 32-bit
            // destination keeps the low half and zeroes the high one).
            const b = i.mb;
            const w = i.size === 8;
            if (mf === 2 /* MemoryForm.BaseIndex */) {
              const n = i.mi;
              const s = i.ms;
              const x = (R[n] >>> 0) * s + (R[b] >>> 0) + (i.ml >>> 0);
              H[i.dr] = w ? (i.mh + H[b] + Math.imul(H[n], s) + ((x / 4294967296) | 0)) | 0 : 0;
              R[i.dr] = x | 0;
              break;
            }
            if (mf === 1 /* MemoryForm.Base */) {
              const x = (i.ml >>> 0) + (R[b] >>> 0);
              H[i.dr] = w ? (i.mh + H[b] + (x > 0xffffffff ? 1 : 0)) | 0 : 0;
              R[i.dr] = x | 0;
              break;
            }
          }
          const a = cpu.ea(i);
          if (i.size === 8) { R[i.dr] = a; H[i.dr] = cpu.eah; }
          else cpu.setR(i.dr, i.size, a, 0);
          break;
        }
    }
    return -1;
  }
  /** The dispatch's case for Op.Movzx. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opMovzx(cpu: Cpu, i: Insn): number {
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        {
          let v: number;
          if (i.sk === 1 /* OperandKind.Reg */) v = cpu.getR(i.sr, i.size2);
          else if (i.mf === 1 /* MemoryForm.Base */ && i.size2 === 1) {
            // movzx r, byte [base + disp]: CpuCore.ea and rd8's TLB hit, inline.
            const x = (i.ml >>> 0) + (cpu.R[i.mb] >>> 0);
            const ah = (i.mh + cpu.H[i.mb] + (x > 0xffffffff ? 1 : 0)) | 0;
            const a = x | 0;
            const t = ((a >>> 12) ^ ah) & 255, off = a & 0xfff;
            v = cpu.rTagLo[t] === (a & -4096) && cpu.rTagHi[t] === ah ? cpu.rPage[t].data[off] : cpu.rd8(a, ah);
          } else {
            const a = cpu.ea(i);
            v = i.size2 === 1 ? cpu.rd8(a, cpu.eah) : cpu.rd16(a, cpu.eah);
          }
          if (i.size >= 4) { cpu.R[i.dr] = v; cpu.H[i.dr] = 0; }
          else cpu.setR(i.dr, i.size, v, 0);
          break;
        }
    }
    return -1;
  }
  /** The dispatch's case for Op.Movsx. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opMovsx(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        execExtend(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Cmp. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opCmp(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (i.dk === 1 /* OperandKind.Reg */ && i.sk !== 2 /* OperandKind.Mem */) {
          // cmp r8/r16, r/imm (32/64-bit register forms are AluReg): operands are zero-extended.
          const size = i.size;
          const dl = cpu.getR(i.dr, size);
          const sl = i.sk === 3 /* OperandKind.Imm */ ? i.il : cpu.getR(i.sr, size);
          const rl = (dl - sl) & (size === 1 ? 0xff : 0xffff);
          cpu.lop = 2 /* LazyOp.Sub */;
          cpu.lsz = size;
          cpu.ldl = dl;
          cpu.ldh = 0;
          cpu.lsl = sl;
          cpu.lsh = 0;
          cpu.lrl = rl;
          cpu.lrh = 0;
          cpu.lcf = 0;
          break;
        }
        execAlu(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Add, Op.Or, Op.Adc, Op.Sbb, Op.And, Op.Sub, Op.Xor, Op.Test. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opAdd(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        execAlu(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Neg. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opNeg(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (i.dk === 1 /* OperandKind.Reg */ && i.size >= 4) {
          // neg r32/r64: 0 - dst with lazy flags (CF = dst != 0 falls out of LazyOp.Sub).
          const R = cpu.R;
          const H = cpu.H;
          const d = i.dr;
          const w = i.size === 8;
          const dl = R[d];
          const dh = w ? H[d] : 0;
          const rl = -dl | 0;
          const rh = w ? (~dh + (dl === 0 ? 1 : 0)) | 0 : 0;
          R[d] = rl;
          H[d] = rh;
          cpu.lop = 2 /* LazyOp.Sub */;
          cpu.lsz = i.size;
          cpu.ldl = 0;
          cpu.ldh = 0;
          cpu.lsl = dl;
          cpu.lsh = dh;
          cpu.lrl = rl;
          cpu.lrh = rh;
          cpu.lcf = 0;
          break;
        }
        execUnary(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Inc, Op.Dec, Op.Not. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opInc(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        execUnary(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Jcc. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opJcc(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (cpu.cond(i.cc)) {
          cpu.ripLo = i.tl;
          cpu.ripHi = i.th;
          seq = false;
          break;
        }
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Jmp. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opJmp(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        cpu.ripLo = i.tl;
        cpu.ripHi = i.th;
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Call. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opCall(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        cpu.push64(i.nl, i.nh);
        cpu.ripLo = i.tl;
        cpu.ripHi = i.th;
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Ret. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opRet(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        {
          const t = cpu.rd64(cpu.R[4], cpu.H[4]);
          const th = cpu.vh;
          cpu.popCommit(8 + i.il);
          cpu.ripLo = t;
          cpu.ripHi = th;
          seq = false;
          break;
        }
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Push. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opPush(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (i.size === 8 && i.sk === 1 /* OperandKind.Reg */) {
          cpu.push64(cpu.R[i.sr], cpu.H[i.sr]);
          break;
        }
        execFlow(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Pop. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opPop(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (i.size === 8 && i.dk === 1 /* OperandKind.Reg */) {
          const lo = cpu.rd64(cpu.R[4], cpu.H[4]);
          const hi = cpu.vh;
          cpu.popCommit(8);
          cpu.R[i.dr] = lo; cpu.H[i.dr] = hi;
          break;
        }
        execFlow(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.CallInd, Op.JmpInd, Op.Leave, Op.Jrcxz, Op.Loop. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opCallInd(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        execFlow(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Cbw. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opCbw(cpu: Cpu, i: Insn): number {
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        {
          const l = cpu.R[0];
          if (i.size === 2) cpu.setR(0, 2, ((l << 24) >> 24), 0);
          else if (i.size === 4) cpu.setR(0, 4, ((l << 16) >> 16), 0);
          else cpu.setR(0, 8, l, (l >> 31));
          break;
        }
    }
    return -1;
  }
  /** The dispatch's case for Op.Cwd. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opCwd(cpu: Cpu, i: Insn): number {
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        {
          const l = cpu.R[0];
          const h = cpu.H[0];
          if (i.size === 2) cpu.setR(2, 2, ((l << 16) >> 31), 0);
          else if (i.size === 4) cpu.setR(2, 4, (l >> 31), 0);
          else cpu.setR(2, 8, (h >> 31), (h >> 31));
          break;
        }
    }
    return -1;
  }
  /** The dispatch's case for Op.Setcc. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opSetcc(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (i.dk === 1 /* OperandKind.Reg */ && i.dr < 16) {
          // setcc r8 (not AH..BH): merge 0/1 into the low byte.
          cpu.R[i.dr] = (cpu.R[i.dr] & ~0xff) | ((cpu.cond(i.cc) ? 1 : 0) & 0xff);
          break;
        }
        execConditional(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Cmovcc. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opCmovcc(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (i.sk === 1 /* OperandKind.Reg */ && i.size >= 4) {
          // cmovcc r32/r64, r: a 32-bit destination is zero-extended even when nothing moves.
          const w = i.size === 8;
          if (cpu.cond(i.cc)) { cpu.R[i.dr] = cpu.R[i.sr]; cpu.H[i.dr] = w ? cpu.H[i.sr] : 0; }
          else if (i.size === 4) cpu.H[i.dr] = 0;
          break;
        }
        execConditional(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Shift. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opShift(cpu: Cpu, i: Insn): number {
    let seq = true;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (i.dk === 1 /* OperandKind.Reg */ && i.sk === 3 /* OperandKind.Imm */ && i.cc >= 4) {
          // shl/shr/sar r32/r64, imm (not 0), inline: CF = last bit out, OF as the count-1 formula gives it.
          const d = i.dr;
          const l = cpu.R[d];
          if (i.size === 4) {
            const n = i.il & 31;
            if (n !== 0) {
              let rl: number;
              let cf: number;
              let of: number;
              if (i.cc === 4) {
                rl = l << n;
                cf = (l >>> (32 - n)) & 1;
                of = (rl >>> 31) ^ cf;
              } else if (i.cc === 5) {
                rl = (l >>> n) | 0;
                cf = (l >>> (n - 1)) & 1;
                of = l >>> 31;
              } else {
                rl = l >> n;
                cf = (l >> (n - 1)) & 1;
                of = 0;
              }
              cpu.R[d] = rl;
              cpu.H[d] = 0;
              cpu.lop = 6 /* LazyOp.Result */;
              cpu.lsz = 4;
              cpu.lrl = rl;
              cpu.lrh = 0;
              cpu.lcf = cf;
              cpu.lof = of;
              break;
            }
          } else if (i.size === 8) {
            const n = i.il & 63;
            if (n !== 0) {
              const h = cpu.H[d];
              let rl: number;
              let rh: number;
              let cf: number;
              let of: number;
              if (i.cc === 4) {
                if (n < 32) {
                  rl = l << n;
                  rh = (h << n) | (l >>> (32 - n));
                  cf = (h >>> (32 - n)) & 1;
                  of = (rh >>> 31) ^ cf;
                } else {
                  rl = 0;
                  rh = l << (n - 32);
                  cf = ((n === 32 ? h : l >>> (64 - n)) & 1);
                  of = (rh >>> 31) ^ cf;
                }
              } else if (i.cc === 5) {
                if (n < 32) {
                  rl = (l >>> n) | (h << (32 - n));
                  rh = (h >>> n) | 0;
                  cf = (l >>> (n - 1)) & 1;
                  of = h >>> 31;
                } else {
                  rl = (h >>> (n - 32)) | 0;
                  rh = 0;
                  cf = ((n === 32 ? l >>> 31 : h >>> (n - 33)) & 1);
                  of = h >>> 31;
                }
              } else {
                if (n < 32) {
                  rl = (l >>> n) | (h << (32 - n));
                  rh = h >> n;
                  cf = (l >>> (n - 1)) & 1;
                  of = 0;
                } else {
                  rl = h >> (n - 32);
                  rh = h >> 31;
                  cf = ((n === 32 ? l >>> 31 : h >>> (n - 33)) & 1);
                  of = 0;
                }
              }
              cpu.R[d] = rl;
              cpu.H[d] = rh;
              cpu.lop = 6 /* LazyOp.Result */;
              cpu.lsz = 8;
              cpu.lrl = rl;
              cpu.lrh = rh;
              cpu.lcf = cf;
              cpu.lof = of;
              break;
            }
          }
        }
        execShift(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : 0;
  }
  /** The dispatch's case for Op.Imul2. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opImul2(cpu: Cpu, i: Insn): number {
    let seq = true;
    let exit = 0;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        if (i.sk === 1 /* OperandKind.Reg */ && i.size >= 4) {
          // imul r, r / imul r, r, imm at 32/64 bits: the low bits only, CF/OF lazy (LazyOp.Imul).
          const R = cpu.R;
          const H = cpu.H;
          const w = i.size === 8;
          const bl = R[i.sr];
          const bh = w ? H[i.sr] : 0;
          const al = i.i2 === 1 ? i.il : R[i.dr];
          const ah = i.i2 === 1 ? i.ih : w ? H[i.dr] : 0;
          const rl = Math.imul(al, bl);
          const rh = w ? ((Math.imul(al >>> 16, bl >>> 16) + (((Math.imul(al >>> 16, bl & 65535) >>> 0) + (Math.imul(al & 65535, bl & 65535) >>> 16)) >>> 16) + (((Math.imul(al & 65535, bl >>> 16) >>> 0) + (((Math.imul(al >>> 16, bl & 65535) >>> 0) + (Math.imul(al & 65535, bl & 65535) >>> 16)) & 65535)) >>> 16)) + Math.imul(al, bh) + Math.imul(ah, bl)) | 0 : 0;
          R[i.dr] = rl;
          H[i.dr] = rh;
          cpu.lop = 7 /* LazyOp.Imul */;
          cpu.lsz = i.size;
          cpu.ldl = al;
          cpu.ldh = ah;
          cpu.lsl = bl;
          cpu.lsh = bh;
          cpu.lrl = rl;
          cpu.lrh = rh;
          break;
        }
        exit = execRare(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : exit;
  }
  /** The dispatch's case for every other op. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  private static opRare(cpu: Cpu, i: Insn): number {
    let seq = true;
    let exit = 0;
    // The case's statements as in the switch: its `break`s leave this one.
    switch (0) {
      default:
        exit = execRare(cpu, i);
        seq = false;
        break;
    }
    return seq ? -1 : exit;
  }
  /** The handlers by op (every op without a case of its own: the default). */
  private static readonly handlers: readonly Handler[] = Cpu.handlerTable();
  private static handlerTable(): Handler[] {
    const t = Array.from({ length: 256 }, (): Handler => Cpu.opRare);
    t[1] = Cpu.inLoop;
    t[95] = Cpu.inLoop;
    t[91] = Cpu.opAluReg;
    t[2] = Cpu.opNop;
    t[3] = Cpu.opMovRR;
    t[4] = Cpu.opMovRI;
    t[5] = Cpu.opMovRM;
    t[6] = Cpu.opMovMR;
    t[7] = Cpu.opMovMI;
    t[10] = Cpu.opLea;
    t[8] = Cpu.opMovzx;
    t[9] = Cpu.opMovsx;
    t[18] = Cpu.opCmp;
    t[11] = Cpu.opAdd;
    t[12] = Cpu.opAdd;
    t[13] = Cpu.opAdd;
    t[14] = Cpu.opAdd;
    t[15] = Cpu.opAdd;
    t[16] = Cpu.opAdd;
    t[17] = Cpu.opAdd;
    t[19] = Cpu.opAdd;
    t[23] = Cpu.opNeg;
    t[20] = Cpu.opInc;
    t[21] = Cpu.opInc;
    t[22] = Cpu.opInc;
    t[39] = Cpu.opJcc;
    t[37] = Cpu.opJmp;
    t[34] = Cpu.opCall;
    t[36] = Cpu.opRet;
    t[32] = Cpu.opPush;
    t[33] = Cpu.opPop;
    t[35] = Cpu.opCallInd;
    t[38] = Cpu.opCallInd;
    t[42] = Cpu.opCallInd;
    t[89] = Cpu.opCallInd;
    t[90] = Cpu.opCallInd;
    t[43] = Cpu.opCbw;
    t[44] = Cpu.opCwd;
    t[40] = Cpu.opSetcc;
    t[41] = Cpu.opCmovcc;
    t[24] = Cpu.opShift;
    t[28] = Cpu.opImul2;
    return t;
  }
  // @generated-end (handlers)
}
