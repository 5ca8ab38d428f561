import { describe, expect, it } from 'vitest';
import { isPtRegName, PT_REGS_NAMES, PT_REGS_OFFSET, PT_REGS_SIZE } from './pt-regs-layout.js';

describe('PT_REGS_OFFSET', () => {
  it("should give Linux's x86-64 offsets (arch/x86/include/asm/ptrace.h)", () => {
    expect(PT_REGS_OFFSET).toMatchObject({ r15: 0, bp: 32, bx: 40, ax: 80, di: 112, orig_ax: 120, ip: 128 });
    expect(PT_REGS_OFFSET).toMatchObject({ cs: 136, flags: 144, sp: 152, ss: 160 });
    expect(PT_REGS_SIZE).toBe(168);
  });
});

describe('isPtRegName', () => {
  it('should accept every pt_regs member and refuse the r-prefixed legacy names', () => {
    for (const name of PT_REGS_NAMES) expect(isPtRegName(name)).toBe(true);
    expect(isPtRegName('rdi')).toBe(false);
    expect(isPtRegName('DI')).toBe(false);
    expect(isPtRegName('')).toBe(false);
  });
});
