import { MemoryForm } from '../insn.js';
import { LazyOp } from '../lazy-flags.js';
import { Op } from '../op.js';
import { ALU_LAZY_OP, type AluStage, aluResult, imulResult, negResult } from './alu-semantics.js';
import { type EaResult, eaResult, runTimeEa } from './ea-semantics.js';
import { executorOf } from './executors.js';
import { accExtend } from './extend-semantics.js';
import { IN_LOOP } from './handler-result.js';
import { type LazyValues, lazyStore } from './lazy-record.js';
import { indent, lazyName, numbered } from './numbered.js';
import { cmovNotTaken, lowByteWrite, type RegStage, regWrite, setccValue } from './reg-semantics.js';
import { shiftImm32Result, shiftImm64Result } from './shift-semantics.js';
import { loadHit, type TlbStage, tlbHit, tlbLocals, tlbPage } from './tlb-semantics.js';

/** The interpreter's inline loads: the read TLB, the address in `a`/`ah` (tlb-semantics.ts). */
const RD_A: TlbStage = {
  tagLo: 'this.rTagLo',
  tagHi: 'this.rTagHi',
  pages: 'this.rPage',
  lo: 'a',
  hi: 'ah',
  slot: 't',
  off: 'off',
};

/** CpuCore.rd's TLB hit of `size` bytes into `lo`/`hi` (declared by the template), as lines at `pad`. */
function loadLines(size: number, pad: string): string {
  const x = loadHit(size, tlbPage(RD_A), 'off', 'v');
  return [...x.lines, `lo = ${x.lo};`, `hi = ${x.hi};`].map((l) => `${pad}${l}`).join('\n');
}

/** Indents of a case body's statements in the generated switch, and of those one block deeper. */
const CASE_BODY = ' '.repeat(12);
const NESTED_BODY = ' '.repeat(16);
/** Indent of a case's own statements (a call out after its inline forms). */
const CALL_OUT = ' '.repeat(10);

/**
 * The statements storing a lazy-flag record of kind `kinds` (lazy-record.ts: the fields that kind
 * reads, in CpuState's order) into CpuState's fields, one a line at `pad`.
 */
function lazyRecord(pad: string, kinds: number | readonly number[], v: LazyValues): string {
  return indent(
    lazyStore(kinds, v, (f) => `this.${f.field}`),
    pad,
  );
}

/** The registers through CpuState (`this.R[r]`, `this.H[r]`), for reg-semantics.ts. */
const THIS_REGS: RegStage = { lo: (r) => `this.R[${r}]`, hi: (r) => `this.H[${r}]` };

/** A register write at a known width (reg-semantics.ts), as one block on a line. */
function write(size: 4 | 8, r: string, lo: string, hi: string, regs: RegStage = THIS_REGS): string {
  return `{ ${regWrite(size, r, lo, hi, regs).join(' ')} }`;
}

/** run()'s locals R and H (the register file's two arrays). */
const LOCAL_REGS: RegStage = { lo: (r) => `R[${r}]`, hi: (r) => `H[${r}]` };

/**
 * The dispatch's call out for `op` at `pad` (a form it does not take inline, or all of it): `op`'s
 * executor in the table of executors.ts, or execRare, which reaches the rare ones; then the loop
 * leaves its sequential path, since an executor may move RIP.
 */
function callOut(op: keyof typeof Op, pad: string): string {
  const e = executorOf(op);
  const call = e.rare ? 'exit = execRare(this, i);' : `${e.exec}(this, i);`;
  return indent([call, 'seq = false;', 'break;'], pad);
}

/** Case labels for `ops`, which the dispatch hands whole to their one executor (callOut). */
function callOutCases(ops: readonly (keyof typeof Op)[]): string {
  const execs = new Set(ops.map((op) => executorOf(op).exec));
  if (execs.size !== 1) throw new Error(`int3 semantics: ${ops.join(', ')} have executors ${[...execs].join(', ')}`);
  return `${indent(
    ops.map((op) => `case #Op.${op}:`),
    '        ',
  )}\n${callOut(ops[0], '          ')}`;
}

/** Lea's locals for the base, index and scale. */
const LEA_PARTS = { regs: '', base: 'b', index: 'n', scale: 's' };

/**
 * An effective address of form `form` inline (ea-semantics.ts, what CpuCore.ea runs for that form),
 * over the registers through `at.regs` (`'this.'` or run()'s locals R and H) and the operand's parts
 * as `at` names them (default `i.mb`, …), then `use` of its halves; one statement a line at `pad`.
 */
function eaInline(
  form: keyof typeof MemoryForm,
  pad: string,
  at: { regs: string; base?: string; index?: string; scale?: string },
  use: (x: EaResult) => string[],
): string {
  const parts = { base: at.base ?? 'i.mb', index: at.index ?? 'i.mi', scale: at.scale ?? 'i.ms' };
  const x = eaResult(MemoryForm[form], runTimeEa(at.regs, 'x', parts));
  return indent([...x.lines, ...use(x)], pad);
}

/** The AluReg inline cases (no carry in): one group per result formula. */
function aluCases(): string {
  const stage: AluStage = {
    w: 'w',
    mask: null,
    dl: 'dl',
    dh: 'dh',
    sl: 'sl',
    sh: 'sh',
    cin: '0',
    rl: 'rl',
    rh: 'rh',
    t: 'l',
    decl: '',
  };
  const groups: { labels: (keyof typeof Op)[]; op: number }[] = [
    { labels: ['Add'], op: Op.Add },
    { labels: ['Sub', 'Cmp'], op: Op.Sub },
    { labels: ['Or'], op: Op.Or },
    { labels: ['Xor'], op: Op.Xor },
    // and, test: the only other ops AluReg takes inline.
    { labels: [], op: Op.And },
  ];
  const out: string[] = [];
  for (const g of groups) {
    const last = g.labels.length === 0;
    for (const l of g.labels) out.push(`case #Op.${l}:`);
    if (last) out.push('default:');
    const lines = [...aluResult(g.op, stage), `this.lop = #LazyOp.${lazyName(ALU_LAZY_OP[g.op])};`];
    if (!last) lines.push('break;');
    if (lines.some((x) => x.startsWith('const '))) out.push('  {', ...lines.map((x) => `    ${x}`), '  }');
    else out.push(...lines.map((x) => `  ${x}`));
  }
  return indent(out, '              ');
}

/** cmp r8/r16 with a zero-extended source: only the flag state is written. */
function cmpNarrow(): string {
  const stage: AluStage = {
    w: false,
    mask: '(size === 1 ? 0xff : 0xffff)',
    dl: 'dl',
    dh: '0',
    sl: 'sl',
    sh: '0',
    cin: '0',
    rl: 'rl',
    rh: '0',
    t: 'l',
    decl: 'const ',
  };
  return indent(aluResult(Op.Cmp, stage), '            ');
}

function neg(): string {
  const stage = { w: 'w', mask: null, dl: 'dl', dh: 'dh', rl: 'rl', rh: 'rh', decl: 'const ' };
  return indent(negResult(stage), '            ');
}

function imul(): string {
  const stage = { w: 'w', al: 'al', ah: 'ah', bl: 'bl', bh: 'bh', rl: 'rl', rh: 'rh', decl: 'const ' };
  return indent(imulResult(stage), '            ');
}

/** cbw/cwd and their wider forms, one branch per operand size. */
function accExtendCases(): string {
  const out: string[] = [];
  for (const op of ['Cbw', 'Cwd'] as const) {
    out.push(`case #Op.${op}:`, '  {', '    const l = this.R[0];');
    if (op === 'Cwd') out.push('    const h = this.H[0];');
    for (const size of [2, 4, 8]) {
      const x = accExtend(Op[op], size, 'l', 'h');
      const set = `this.setR(${x.reg}, ${x.size}, ${x.lo}, ${x.hi});`;
      out.push(
        size === 2
          ? `    if (i.size === 2) ${set}`
          : size === 4
            ? `    else if (i.size === 4) ${set}`
            : `    else ${set}`,
      );
    }
    out.push('    break;', '  }');
  }
  return indent(out, '        ');
}

function shift32(): string {
  return indent(shiftImm32Result('i.cc', 'n', { l: 'l', rl: 'rl', cf: 'cf', of: 'of', decl: '' }), '                ');
}

function shift64(): string {
  const stage = { l: 'l', h: 'h', rl: 'rl', rh: 'rh', cf: 'cf', of: 'of', decl: '' };
  return indent(shiftImm64Result('i.cc', 'n', stage), '                ');
}

/**
 * The interpreter's dispatch (`switch (i.op)` in Cpu.run, over run()'s locals), as the source text that
 * scripts/gen-dispatch.mjs writes into cpu.ts between its markers. The ALU, neg, imul, shift, cbw/cwd
 * results, the inline addresses, the lazy-flag stores and the setcc/cmov writes come from the
 * semantics the compiler generates its code from (alu-, shift-, extend-, ea-, reg-semantics.ts and
 * lazy-record.ts), the case labels and constants from the op tables (`#Op.Nop` here). Checked in, and
 * compared with this by generated-parts.spec.ts, so nobody edits the generated copy by hand.
 */
export function interpreterDispatch(): string {
  const cases = indent(dispatchSwitch().split('\n'), '        ');
  return `      // A CPU with the compiler calls its case in the table of handlers (interpreter-handlers.ts:
      // the same statements), except for the ops the loop runs itself; the interpreter alone switches.
      const r = table === null ? ${IN_LOOP} : table[i.op](this, i);
      if (r === ${IN_LOOP}) {
        // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
${cases}
      } else if (r >= 0) {
        exit = r;
        seq = false;
      }`;
}

/**
 * The dispatch's switch alone, its case labels at an indent of 2 (what interpreterDispatch puts in
 * the loop and interpreterHandlers splits into functions).
 */
export function dispatchSwitch(): string {
  return numbered(`      switch (i.op) {
        case #Op.Gate:
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
        case #Op.DebugStop:
          this.atDebugStop = true;
          return { reason: 'budget', rip: this.rip };
        case #Op.AluReg:
          if (i.i2 !== #Op.Adc && i.i2 !== #Op.Sbb) {
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
            if (i.sk === #OperandKind.Imm) {
              sl = i.il;
              sh = i.ih;
            } else if (i.sk === #OperandKind.Reg) {
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
${aluCases()}
            }
            if (i.i2 !== #Op.Cmp && i.i2 !== #Op.Test) {
              R[d] = rl;
              H[d] = rh;
            }
${lazyRecord(CASE_BODY, [LazyOp.Add, LazyOp.Sub, LazyOp.Logic], { size: 'i.size', dl: 'dl', dh: 'dh', sl: 'sl', sh: 'sh', rl: 'rl', rh: 'rh', cf: '0' })}
            break;
          }
${callOut('AluReg', CALL_OUT)}
        case #Op.Nop:
          break;
        case #Op.MovRR:
          if (i.size === 8) ${write(8, 'i.dr', 'this.R[i.sr]', 'this.H[i.sr]')}
          else if (i.size === 4) ${write(4, 'i.dr', 'this.R[i.sr]', '0')}
          else this.setR(i.dr, i.size, this.getR(i.sr, i.size), 0);
          break;
        case #Op.MovRI:
          // The immediate's high half is already 0 at 32 bits.
          if (i.size >= 4) ${write(8, 'i.dr', 'i.il', 'i.ih')}
          else this.setR(i.dr, i.size, i.il, i.ih);
          break;
        case #Op.MovRM:
          {
            const R = this.R;
            const H = this.H;
            let a: number;
            let ah: number;
            if (i.mf === #MemoryForm.Base) {
              // CpuCore.ea's base + disp form, inline.
${eaInline('Base', '              ', { regs: '' }, (x) => [`ah = ${x.hi};`, `a = ${x.lo};`])}
            } else {
              a = this.ea(i);
              ah = this.eah;
            }
            if (i.size === 8) {
              // CpuCore.rd64's TLB hit, inline.
              ${tlbLocals(RD_A, 'const ')}
              let lo: number;
              let hi: number;
              if (${tlbHit(8, RD_A)}) {
${loadLines(8, '                ')}
              } else {
                lo = this.rd64(a, ah);
                hi = this.vh;
              }
              ${regWrite(8, 'i.dr', 'lo', 'hi', LOCAL_REGS).join(' ')}
            } else if (i.size === 4) ${write(4, 'i.dr', 'this.rd32(a, ah)', '0', LOCAL_REGS)}
            else this.setR(i.dr, i.size, this.load(a, ah, i.size), 0);
            break;
          }
        case #Op.MovMR:
          {
            let a: number;
            let ah: number;
            if (i.mf === #MemoryForm.Base) {
              // CpuCore.ea's base + disp form, inline.
${eaInline('Base', '              ', { regs: 'this.' }, (x) => [`ah = ${x.hi};`, `a = ${x.lo};`])}
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
        case #Op.MovMI:
          if (i.mf === #MemoryForm.Base && i.size === 8) {
            // mov qword [base + disp], imm32: CpuCore.ea's base + disp form, inline.
${eaInline('Base', '            ', { regs: 'this.' }, (x) => [`this.wr64(${x.lo}, ${x.hi}, i.il, i.ih);`])}
            break;
          }
          this.store(this.ea(i), this.eah, i.size, i.il, i.ih);
          break;
        case #Op.Lea:
          {
            const R = this.R;
            const H = this.H;
            const mf = i.mf;
            if (i.size >= 4 && mf <= 2) {
              // CpuCore.ea's base + disp and base + index * scale + disp forms, inline (a 32-bit
              // destination keeps the low half and zeroes the high one).
              const b = i.mb;
              const w = i.size === 8;
              if (mf === #MemoryForm.BaseIndex) {
                const n = i.mi;
                const s = i.ms;
${eaInline('BaseIndex', '                ', LEA_PARTS, (x) => [`H[i.dr] = w ? ${x.hi} : 0;`, `R[i.dr] = ${x.lo};`])}
                break;
              }
              if (mf === #MemoryForm.Base) {
${eaInline('Base', '                ', LEA_PARTS, (x) => [`H[i.dr] = w ? ${x.hi} : 0;`, `R[i.dr] = ${x.lo};`])}
                break;
              }
            }
            const a = this.ea(i);
            if (i.size === 8) ${write(8, 'i.dr', 'a', 'this.eah', LOCAL_REGS)}
            else this.setR(i.dr, i.size, a, 0);
            break;
          }
        case #Op.Movzx:
          {
            let v: number;
            if (i.sk === #OperandKind.Reg) v = this.getR(i.sr, i.size2);
            else if (i.mf === #MemoryForm.Base && i.size2 === 1) {
              // movzx r, byte [base + disp]: CpuCore.ea and rd8's TLB hit, inline.
${eaInline('Base', '              ', { regs: 'this.' }, (x) => [`const ah = ${x.hi};`, `const a = ${x.lo};`])}
              ${tlbLocals(RD_A, 'const ')}
              v = ${tlbHit(1, RD_A)} ? ${loadHit(1, tlbPage(RD_A), 'off', 'q').lo} : this.rd8(a, ah);
            } else {
              const a = this.ea(i);
              v = i.size2 === 1 ? this.rd8(a, this.eah) : this.rd16(a, this.eah);
            }
            if (i.size >= 4) ${write(4, 'i.dr', 'v', '0')}
            else this.setR(i.dr, i.size, v, 0);
            break;
          }
${callOutCases(['Movsx'])}
        case #Op.Cmp:
          if (i.dk === #OperandKind.Reg && i.sk !== #OperandKind.Mem) {
            // cmp r8/r16, r/imm (32/64-bit register forms are AluReg): operands are zero-extended.
            const size = i.size;
            const dl = this.getR(i.dr, size);
            const sl = i.sk === #OperandKind.Imm ? i.il : this.getR(i.sr, size);
${cmpNarrow()}
${lazyRecord(CASE_BODY, LazyOp.Sub, { op: '#LazyOp.Sub', size: 'size', dl: 'dl', dh: '0', sl: 'sl', sh: '0', rl: 'rl', rh: '0', cf: '0' })}
            break;
          }
${callOut('Cmp', CALL_OUT)}
${callOutCases(['Add', 'Or', 'Adc', 'Sbb', 'And', 'Sub', 'Xor', 'Test'])}
        case #Op.Neg:
          if (i.dk === #OperandKind.Reg && i.size >= 4) {
            // neg r32/r64: 0 - dst with lazy flags (CF = dst != 0 falls out of LazyOp.Sub).
            const R = this.R;
            const H = this.H;
            const d = i.dr;
            const w = i.size === 8;
            const dl = R[d];
            const dh = w ? H[d] : 0;
${neg()}
            R[d] = rl;
            H[d] = rh;
${lazyRecord(CASE_BODY, LazyOp.Sub, { op: '#LazyOp.Sub', size: 'i.size', dl: '0', dh: '0', sl: 'dl', sh: 'dh', rl: 'rl', rh: 'rh', cf: '0' })}
            break;
          }
${callOut('Neg', CALL_OUT)}
${callOutCases(['Inc', 'Dec', 'Not'])}
        case #Op.Jcc:
          if (this.cond(i.cc)) {
            this.ripLo = i.tl;
            this.ripHi = i.th;
            seq = false;
            break;
          }
          break;
        case #Op.Jmp:
          this.ripLo = i.tl;
          this.ripHi = i.th;
          seq = false;
          break;
        case #Op.Call:
          this.push64(i.nl, i.nh);
          this.ripLo = i.tl;
          this.ripHi = i.th;
          seq = false;
          break;
        case #Op.Ret:
          {
            const t = this.rd64(this.R[4], this.H[4]);
            const th = this.vh;
            this.popCommit(8 + i.il);
            this.ripLo = t;
            this.ripHi = th;
            seq = false;
            break;
          }
        case #Op.Push:
          if (i.size === 8 && i.sk === #OperandKind.Reg) {
            this.push64(this.R[i.sr], this.H[i.sr]);
            break;
          }
${callOut('Push', CALL_OUT)}
        case #Op.Pop:
          if (i.size === 8 && i.dk === #OperandKind.Reg) {
            const lo = this.rd64(this.R[4], this.H[4]);
            const hi = this.vh;
            this.popCommit(8);
            ${regWrite(8, 'i.dr', 'lo', 'hi', THIS_REGS).join(' ')}
            break;
          }
${callOut('Pop', CALL_OUT)}
${callOutCases(['CallInd', 'JmpInd', 'Leave', 'Jrcxz', 'Loop'])}
${accExtendCases()}
        case #Op.Setcc:
          if (i.dk === #OperandKind.Reg && i.dr < 16) {
            // setcc r8 (not AH..BH): merge 0/1 into the low byte.
            ${lowByteWrite('i.dr', setccValue('this.cond(i.cc)'), THIS_REGS)}
            break;
          }
${callOut('Setcc', CALL_OUT)}
        case #Op.Cmovcc:
          if (i.sk === #OperandKind.Reg && i.size >= 4) {
            // cmovcc r32/r64, r: a 32-bit destination is zero-extended even when nothing moves.
            const w = i.size === 8;
            if (this.cond(i.cc)) ${write(8, 'i.dr', 'this.R[i.sr]', 'w ? this.H[i.sr] : 0')}
            else ${cmovNotTaken('i.size', 'i.dr', THIS_REGS).join(' ')}
            break;
          }
${callOut('Cmovcc', CALL_OUT)}
        case #Op.Shift:
          if (i.dk === #OperandKind.Reg && i.sk === #OperandKind.Imm && i.cc >= 4) {
            // shl/shr/sar r32/r64, imm (not 0), inline: CF = last bit out, OF as the count-1 formula gives it.
            const d = i.dr;
            const l = this.R[d];
            if (i.size === 4) {
              const n = i.il & 31;
              if (n !== 0) {
                let rl: number;
                let cf: number;
                let of: number;
${shift32()}
                this.R[d] = rl;
                this.H[d] = 0;
${lazyRecord(NESTED_BODY, LazyOp.Result, { op: '#LazyOp.Result', size: '4', rl: 'rl', rh: '0', cf: 'cf', of: 'of' })}
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
${shift64()}
                this.R[d] = rl;
                this.H[d] = rh;
${lazyRecord(NESTED_BODY, LazyOp.Result, { op: '#LazyOp.Result', size: '8', rl: 'rl', rh: 'rh', cf: 'cf', of: 'of' })}
                break;
              }
            }
          }
${callOut('Shift', CALL_OUT)}
        case #Op.Imul2:
          if (i.sk === #OperandKind.Reg && i.size >= 4) {
            // imul r, r / imul r, r, imm at 32/64 bits: the low bits only, CF/OF lazy (LazyOp.Imul).
            const R = this.R;
            const H = this.H;
            const w = i.size === 8;
            const bl = R[i.sr];
            const bh = w ? H[i.sr] : 0;
            const al = i.i2 === 1 ? i.il : R[i.dr];
            const ah = i.i2 === 1 ? i.ih : w ? H[i.dr] : 0;
${imul()}
            R[i.dr] = rl;
            H[i.dr] = rh;
${lazyRecord(CASE_BODY, LazyOp.Imul, { op: '#LazyOp.Imul', size: 'i.size', dl: 'al', dh: 'ah', sl: 'bl', sh: 'bh', rl: 'rl', rh: 'rh', cf: '0' })}
            break;
          }
${callOut('Imul2', CALL_OUT)}
        default:
          exit = execRare(this, i);
          seq = false;
          break;
      }`)
    .split('\n')
    .map((l) => l.slice(6))
    .join('\n');
}

/** The lines that delimit the generated dispatch in cpu.ts. */
export const DISPATCH_BEGIN =
  '      // @generated-begin: scripts/gen-dispatch.mjs writes this switch from src/semantics/interpreter-dispatch.ts';
export const DISPATCH_END = '      // @generated-end';
