import { Reg } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { SYSV_ARG_PT_REGS, SYSV_ARG_REGS } from './calling-convention.js';
import { PT_REGS_GPR } from './pt-regs-layout.js';

describe('SYSV_ARG_REGS', () => {
  it('should be rdi, rsi, rdx, rcx, r8, r9, the pt_regs members of SYSV_ARG_PT_REGS', () => {
    expect(SYSV_ARG_REGS).toEqual([Reg.RDI, Reg.RSI, Reg.RDX, Reg.RCX, Reg.R8, Reg.R9]);
    expect(SYSV_ARG_PT_REGS.map((name) => PT_REGS_GPR[name])).toEqual(SYSV_ARG_REGS);
  });
});
