import { type Observable, Subject } from 'rxjs';
import type { AddressSpace } from './address-space.js';
import { applyContext, type CpuContext, captureContext } from './cpu-context.js';
import { Access } from './cpu-core.js';
import { CpuFault } from './cpu-fault.js';
import { CpuRegisters } from './cpu-registers.js';
import { decodeInsn, gateInsn, pageBytes } from './decode.js';
import { ExceptionVector, exceptionName } from './exception-vector.js';
import { execAlu, execAluReg, execConditional, execExtend, execUnary } from './exec-alu.js';
import { execFlow } from './exec-flow.js';
import { execRare } from './exec-rare.js';
import { execShift, shiftRegImm } from './exec-shift.js';
import type { Insn } from './insn.js';
import { mappingEpoch } from './mapping-epoch.js';
import { PageFlags } from './page-flags.js';
import type { RunResult } from './run-result.js';
import type { TrapEvent } from './trap-event.js';

/** The empty decode cache standing for "no page cached" in the run loop. */
const NO_CODE: (Insn | null)[] = [];

/** Options of a new {@link Cpu}. */
export interface CpuOptions {
  addressSpace: AddressSpace;
  id?: number;
  io?: { in(port: number, size: number): number; out(port: number, size: number, value: number): void };
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
export class Cpu extends CpuRegisters {
  readonly id: number;
  private epoch = -1;
  private readonly trapSubject = new Subject<TrapEvent>();
  readonly traps$: Observable<TrapEvent> = this.trapSubject.asObservable();

  constructor(options: CpuOptions) {
    super(options.addressSpace);
    this.id = options.id ?? 0;
    this.cpuId = this.id;
    this.io = options.io;
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
  run(budget: number, hardCap = budget * 16 + 1e6): RunResult {
    if (this.epoch !== mappingEpoch.value) {
      this.flushTlb();
      this.epoch = mappingEpoch.value;
    }
    const virtualEnd = this.virtualCount + budget;
    const end = this.retiredCount + hardCap;
    try {
      return this.loop(virtualEnd, end);
    } catch (e) {
      if (!(e instanceof CpuFault)) throw e;
      return this.fault(e);
    }
  }

  /** The interpreter loop; faults propagate to run() as thrown CpuFaults. */
  private loop(virtualEnd: number, end: number): RunResult {
    let left = 0;
    // A one-page fetch cache in locals: the decode cache of the page RIP was last fetched from.
    // `attention` (TLB flush, pending interrupt) drops it, so it never outlives a permission check.
    let codeLo = 1;
    let codeHi = 0;
    let code = NO_CODE;
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
      }
      // `left` bounds both budgets from below (each instruction costs at most 1 of either), so the
      // exact check runs only when it reaches zero.
      if (--left < 0) {
        left = Math.min(virtualEnd - this.virtualCount, end - this.retiredCount) - 1;
        if (left < 0) return { reason: 'budget', rip: this.rip };
      }
      const tf = this.flags & 0x100; // TF at the start of the instruction
      const lo = this.ripLo;
      let insn = (lo & -4096) === codeLo && this.ripHi === codeHi ? code[lo & 0xfff] : null;
      if (insn === null) {
        insn = this.fetch();
        code = this.fPage[(lo >>> 12) & 255].code ?? NO_CODE;
        codeLo = lo & -4096;
        codeHi = this.ripHi;
      }
      const i = insn;
      let exit = 0;
      let seq = true;
      // The hot instructions are dispatched inline (no call per instruction); the rest go to execRare.
      switch (i.op) {
        case 1 /* Op.Gate */:
          return { reason: 'gate', rip: this.rip };
        case 91 /* Op.AluReg */:
          if (i.i2 !== 13 /* Op.Adc */ && i.i2 !== 14 /* Op.Sbb */) {
            // The commonest instructions of gcc output, inline: add/sub/cmp/and/or/xor/test on a
            // 32/64-bit register with a register or immediate source (no carry in).
            const R = this.R;
            const H = this.H;
            const d = i.dr;
            const w = i.size === 8;
            const dl = R[d];
            const dh = w ? H[d] : 0;
            const imm = i.sk === 3 /* OperandKind.Imm */;
            const sl = imm ? i.il : R[i.sr];
            const sh = imm ? i.ih : w ? H[i.sr] : 0;
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
          if (i.size === 8) {
            this.R[i.dr] = this.R[i.sr];
            this.H[i.dr] = this.H[i.sr];
          } else if (i.size === 4) {
            this.R[i.dr] = this.R[i.sr];
            this.H[i.dr] = 0;
          } else this.setR(i.dr, i.size, this.getR(i.sr, i.size), 0);
          break;
        case 4 /* Op.MovRI */:
          this.setR(i.dr, i.size, i.il, i.ih);
          break;
        case 5 /* Op.MovRM */:
          {
            const a = this.ea(i);
            if (i.size === 8) {
              const lo = this.rd64(a, this.eah);
              this.R[i.dr] = lo;
              this.H[i.dr] = this.vh;
            } else this.setR(i.dr, i.size, this.load(a, this.eah, i.size), 0);
            break;
          }
        case 6 /* Op.MovMR */:
          {
            const a = this.ea(i);
            if (i.size === 8) this.wr64(a, this.eah, this.R[i.sr], this.H[i.sr]);
            else this.store(a, this.eah, i.size, this.getR(i.sr, i.size), 0);
            break;
          }
        case 7 /* Op.MovMI */:
          this.store(this.ea(i), this.eah, i.size, i.il, i.ih);
          break;
        case 10 /* Op.Lea */:
          this.setR(i.dr, i.size, this.ea(i), this.eah);
          break;
        case 8 /* Op.Movzx */:
          {
            const v =
              i.sk === 1 /* OperandKind.Reg */ ? this.getR(i.sr, i.size2) : this.load(this.ea(i), this.eah, i.size2);
            this.setR(i.dr, i.size, v, 0);
            break;
          }
        case 9 /* Op.Movsx */:
          execExtend(this, i);
          seq = false;
          break;
        case 11 /* Op.Add */:
        case 12 /* Op.Or */:
        case 13 /* Op.Adc */:
        case 14 /* Op.Sbb */:
        case 15 /* Op.And */:
        case 16 /* Op.Sub */:
        case 17 /* Op.Xor */:
        case 18 /* Op.Cmp */:
        case 19 /* Op.Test */:
          execAlu(this, i);
          seq = false;
          break;
        case 20 /* Op.Inc */:
        case 21 /* Op.Dec */:
        case 22 /* Op.Not */:
        case 23 /* Op.Neg */:
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
            this.R[i.dr] = lo;
            this.H[i.dr] = hi;
            break;
          }
          execFlow(this, i);
          seq = false;
          break;
        case 35 /* Op.CallInd */:
        case 38 /* Op.JmpInd */:
        case 42 /* Op.Leave */:
        case 43 /* Op.Cbw */:
        case 44 /* Op.Cwd */:
        case 89 /* Op.Jrcxz */:
        case 90 /* Op.Loop */:
          execFlow(this, i);
          seq = false;
          break;
        case 40 /* Op.Setcc */:
        case 41 /* Op.Cmovcc */:
          execConditional(this, i);
          seq = false;
          break;
        case 24 /* Op.Shift */:
          if (i.dk === 1 /* OperandKind.Reg */ && i.sk === 3 /* OperandKind.Imm */ && i.cc >= 4 && shiftRegImm(this, i))
            break;
          execShift(this, i);
          seq = false;
          break;
        default:
          exit = execRare(this, i);
          seq = false;
          break;
      }
      if (seq) {
        this.ripLo = i.nl;
        this.ripHi = i.nh;
      }
      this.retiredCount++;
      this.virtualCount += insn.cost & this.costMask;
      if (exit !== 0) {
        if (exit === 1) return { reason: 'hlt', rip: this.rip };
        return this.exception(this.trapVector, undefined, undefined, false);
      }
      if (tf !== 0 && (insn.op !== 75 /* Op.Syscall */ || this.flags & 0x100)) {
        return this.exception(ExceptionVector.Debug, undefined, undefined, true);
      }
    }
  }

  private fetch(): Insn {
    const lo = this.ripLo;
    const i = (lo >>> 12) & 255;
    if (this.fTagLo[i] === (lo & -4096) && this.fTagHi[i] === this.ripHi) {
      const code = this.fPage[i].code;
      if (code !== null) {
        const insn = code[lo & 0xfff];
        if (insn !== null) return insn;
      }
    }
    return this.fetchSlow();
  }

  /** TLB or decode-cache miss: check permissions, decode with iced-x86, cache on the page object. */
  private fetchSlow(): Insn {
    const lo = this.ripLo;
    const hi = this.ripHi;
    const page = this.translate(lo, hi, Access.Fetch);
    const off = lo & 0xfff;
    const code = page.codeArray();
    const cached = code[off];
    if (cached !== null) return cached;
    let insn: Insn;
    if (page.flags & PageFlags.Gate) insn = gateInsn();
    else {
      const first = pageBytes(page.data, off);
      let decoded = decodeInsn(first, this.rip);
      if (decoded === null) {
        // Step 1: the instruction continues on the next page, which must be executable too.
        const nl = (lo + (4096 - off)) | 0;
        const next = this.translate(nl, nl === 0 ? (hi + 1) | 0 : hi, Access.Fetch);
        const bytes = new Uint8Array(15);
        bytes.set(first);
        bytes.set(next.data.subarray(0, 15 - first.length), first.length);
        decoded = decodeInsn(bytes, this.rip) as Insn;
        // Step 2: writes to either page must drop it.
        if (off + decoded.len > 4096) next.addStraddler(page);
      }
      insn = decoded;
      if (page.instrumentation !== null && page.instrumentation[off] !== 0) insn.cost = 0;
    }
    code[off] = insn;
    return insn;
  }

  /**
   * Turns a thrown fault into a RunResult. Executors update RIP only after their last access that can
   * fault, so RIP still addresses the faulting instruction here.
   */
  private fault(e: CpuFault): RunResult {
    if (e.vector === ExceptionVector.PageFault && e.cr2 !== undefined) this.cr2Value = e.cr2;
    return this.exception(e.vector, e.errorCode, e.cr2, false);
  }

  private exception(
    vector: number,
    errorCode: number | undefined,
    cr2: bigint | undefined,
    singleStep: boolean,
  ): RunResult {
    const insn = this.udInsn;
    this.udInsn = null;
    const rip = this.rip;
    const result: RunResult = { reason: 'exception', vector, rip };
    if (errorCode !== undefined) result.errorCode = errorCode;
    if (cr2 !== undefined) result.cr2 = cr2;
    if (singleStep) result.singleStep = true;
    if (this.trapSubject.observed) {
      const ud = vector === ExceptionVector.InvalidOpcode && insn !== null && insn.op === 0 /* Op.Ud */;
      const event: TrapEvent = {
        type: 'trap:raised',
        cpu: this.id,
        vector,
        name: exceptionName(vector),
        rip,
        ...(errorCode !== undefined ? { errorCode } : {}),
        ...(cr2 !== undefined ? { cr2 } : {}),
        ...(ud ? { bytes: insn.bytes, mnemonic: insn.mnemonic } : {}),
        retired: this.retiredCount,
      };
      this.trapSubject.next(Object.freeze(event));
    }
    return result;
  }

  /** The full register file as plain, deep-copied data. */
  saveContext(): CpuContext {
    return captureContext(this);
  }

  /** Restores a context produced by saveContext (of this or another CPU). */
  restoreContext(c: CpuContext): void {
    applyContext(this, c);
  }
}
