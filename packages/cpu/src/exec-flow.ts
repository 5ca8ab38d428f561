import type { CpuCore } from './cpu-core.js';
import { writeOperand } from './exec-alu.js';
import { type Insn, OperandKind } from './insn.js';
import { Op } from './op.js';

/**
 * Stack and control-flow instructions other than jcc: push/pop (reg, imm, mem), indirect call/jmp,
 * ret imm16, leave, jrcxz and loop (the cbw/cwd families are semantics/extend-semantics.ts').
 * @see Intel SDM Vol. 2B (PUSH, POP, LEAVE, RET, CALL, JMP, LOOP)
 */
export function execFlow(c: CpuCore, i: Insn): void {
  switch (i.op) {
    case Op.Push: {
      const v = c.readSrc(i);
      if (i.size === 8) c.push64(v, c.vh);
      else c.push(i.size, v, c.vh);
      break;
    }
    case Op.Pop: {
      const v = c.peek(i.size);
      const h = c.vh;
      const sl = c.R[4];
      const sh = c.H[4];
      c.popCommit(i.size);
      if (i.dk === OperandKind.Reg) c.setR(i.dr, i.size, v, h);
      else {
        try {
          writeOperand(c, i, v, h);
        } catch (e) {
          c.R[4] = sl;
          c.H[4] = sh;
          throw e;
        }
      }
      break;
    }
    case Op.CallInd: {
      const t = c.readSrc(i);
      const th = c.vh;
      c.push(8, i.nl, i.nh);
      c.ripLo = t;
      c.ripHi = th;
      return;
    }
    case Op.JmpInd:
      c.ripLo = c.readSrc(i);
      c.ripHi = c.vh;
      return;
    case Op.Leave: {
      // RSP = RBP, then pop (R)BP: 8 bytes, or 2 into BP with a 66 prefix (the rest of RBP kept).
      const size = i.size;
      const v = size === 8 ? c.rd64(c.R[5], c.H[5]) : c.rd16(c.R[5], c.H[5]);
      const h = c.vh;
      c.leaveRsp(size);
      if (size === 8) {
        c.R[5] = v;
        c.H[5] = h;
      } else c.R[5] = (c.R[5] & ~0xffff) | v;
      break;
    }
    case Op.Jrcxz:
    case Op.Loop: {
      // With a 32-bit address size the count is ECX, written as a 32-bit register (RCX's upper
      // half cleared: measured on the host CPU) and tested alone.
      let taken: boolean;
      if (i.op === Op.Loop) {
        if (i.a32 !== 0) {
          c.R[1] = (c.R[1] - 1) | 0;
          c.H[1] = 0;
        } else {
          const x = (c.R[1] >>> 0) - 1;
          c.R[1] = x | 0;
          if (x < 0) c.H[1] = (c.H[1] - 1) | 0;
        }
        taken = c.R[1] !== 0 || c.H[1] !== 0;
        // loope / loopne: also ZF = 1 / ZF = 0.
        if (taken && i.cc !== 0) taken = c.getZF() === (i.cc === 1 ? 1 : 0);
      } else taken = c.R[1] === 0 && (i.a32 !== 0 || c.H[1] === 0);
      if (taken) {
        c.ripLo = i.tl;
        c.ripHi = i.th;
        return;
      }
      break;
    }
  }
  c.ripLo = i.nl;
  c.ripHi = i.nh;
}
