import { type Insn, MemoryForm } from '../../insn.js';
import { Op } from '../../op.js';
import { ALU_LAZY_OP } from '../../semantics/alu-semantics.js';
import { SHIFT_SAR, SHIFT_SHL, SHIFT_SHR } from '../../semantics/shift-semantics.js';
import { BlockEnd, type RegionPlan } from '../region-plan.js';

/** The op of an instruction, an AluReg's own op for it. */
export function opOf(i: Insn): number {
  return i.op === Op.AluReg ? i.i2 : i.op;
}

/** Whether the back end takes `i` (this form of it). */
function takes(i: Insn): boolean {
  if (i.cost !== 1) return false;
  const mem = i.dk === 2 || i.sk === 2 || i.op === Op.Lea;
  if (mem && i.mf === MemoryForm.General) return false;
  const op = opOf(i);
  // add/sub/cmp/and/or/xor/test (not adc/sbb) with a register or memory destination, and a register,
  // memory or immediate source.
  if (op !== Op.Adc && op !== Op.Sbb && ALU_LAZY_OP[op] !== undefined)
    return (i.dk === 1 || i.dk === 2) && (i.sk === 1 || i.sk === 2 || i.sk === 3);
  switch (op) {
    case Op.Nop:
    case Op.MovRR:
    case Op.MovRI:
    case Op.MovRM:
    case Op.MovMR:
    case Op.MovMI:
    case Op.Movzx:
    case Op.Movsx:
    case Op.Lea:
    case Op.Jcc:
    case Op.Jmp:
    case Op.Call:
    case Op.Ret:
    case Op.Setcc:
    case Op.Cmovcc:
      return true;
    case Op.Inc:
    case Op.Dec:
    case Op.Not:
    case Op.Neg:
      return i.dk === 1 || i.dk === 2;
    case Op.Shift:
      // By an immediate, at 32/64 bits, shl/shr/sar (the interpreter's inline form).
      return (
        i.dk === 1 &&
        i.sk === 3 &&
        (i.size === 4 || i.size === 8) &&
        (i.cc === SHIFT_SHL || i.cc === SHIFT_SHR || i.cc === SHIFT_SAR) &&
        (i.il & (i.size === 8 ? 63 : 31)) !== 0
      );
    case Op.Imul2:
      return i.sk === 1 && i.size >= 4;
    case Op.Push:
      return i.size === 8 && i.sk === 1;
    case Op.Pop:
      return i.size === 8 && i.dk === 1;
    default:
      return false;
  }
}

/**
 * Whether the WebAssembly back end takes `plan`: blocks of one page, no gate, and every instruction
 * one it writes (the integer moves, ALU ops, branches, calls and returns of compiled C code, at a
 * cost of 1 each); the JavaScript back end takes the rest.
 */
export function wasmTakes(plan: RegionPlan): boolean {
  if (plan.pages.length !== 1) return false;
  for (const b of plan.blocks) {
    if (b.end === BlockEnd.Gate || b.page !== 0) return false;
    for (const i of b.insns) if (!takes(i)) return false;
  }
  return true;
}
