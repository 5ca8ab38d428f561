import { describe, expect, it } from 'vitest';
import { Msr } from './msr.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';
import { TEST_LAYOUT, testMachine } from './test-machine.fixture.js';

const MOV_CR0_RAX = [0x0f, 0x22, 0xc0];
const MOV_CR3_RAX = [0x0f, 0x22, 0xd8];
const MOV_CR4_RAX = [0x0f, 0x22, 0xe0];
const WRMSR = [0x0f, 0x30];
/** mov [rdi], eax */
const STORE = [0x89, 0x07];
const GP = { reason: 'exception', vector: 13, errorCode: 0, rip: TEST_LAYOUT.code } as const;
const RESET_CR0 = 0x80050033n;
const WP = 1n << 16n;

/** One instruction stepped with RAX = `value` — for wrmsr, EDX:EAX = `value` and RCX = `msr`. */
function step(code: readonly number[], value: bigint, msr?: number) {
  const m = testMachine(code);
  if (msr === undefined) m.cpu.setReg(Reg.RAX, value);
  else {
    m.cpu.setReg(Reg.RAX, value & 0xffffffffn);
    m.cpu.setReg(Reg.RDX, value >> 32n);
    m.cpu.setReg(Reg.RCX, BigInt(msr));
  }
  return { m, r: m.cpu.step() };
}

// Intel SDM Vol. 2B "MOV—Move to/from Control Registers" (64-bit mode exceptions), Vol. 3A §2.5
// (CR0, CR4 bits), §4.6.1 (CR0.WP), Vol. 4 (IA32_EFER, IA32_LSTAR), Vol. 2B WRMSR.
describe('MOV to CR0', () => {
  it.each([
    ['a bit of 63:32 set', RESET_CR0 | (1n << 32n)],
    ['PG without PE', RESET_CR0 & ~1n],
    ['NW without CD', RESET_CR0 | (1n << 29n)],
    ['PG cleared in IA-32e mode', RESET_CR0 & ~(1n << 31n)],
  ])('should raise #GP(0) for %s, CR0 unchanged', (_, value) => {
    const { m, r } = step(MOV_CR0_RAX, value);
    expect(r).toEqual(GP);
    expect(m.cpu.cr0).toBe(RESET_CR0);
  });

  it('should drop the undefined bits of 31:0 and keep ET set', () => {
    // Bit 6 is undefined; ET (bit 4) is hardwired to 1.
    const { m, r } = step(MOV_CR0_RAX, (RESET_CR0 | (1n << 6n)) & ~(1n << 4n));
    expect(r.reason).toBe('budget');
    expect(m.cpu.cr0).toBe(RESET_CR0);
  });
});

describe('CR0.WP', () => {
  /** A CPU whose data page is read-only, storing 0x1234 there at CPL `cpl` with CR0 = `cr0`. */
  function storeReadOnly(cr0: bigint, cpl: 0 | 3) {
    const m = testMachine(STORE);
    m.as.unmap(TEST_LAYOUT.data, 4096);
    m.as.map(TEST_LAYOUT.data, 4096, PageFlags.Present | PageFlags.User);
    m.cpu.cr0 = cr0;
    if (cpl === 3) m.cpu.cs = 0x33;
    m.cpu.setReg(Reg.RDI, TEST_LAYOUT.data);
    m.cpu.setReg(Reg.RAX, 0x1234n);
    return { m, r: m.cpu.step() };
  }

  it('should fault a supervisor write to a read-only page while WP is set (the reset value)', () => {
    const { m, r } = storeReadOnly(RESET_CR0, 0);
    expect(r).toMatchObject({ reason: 'exception', vector: 14, errorCode: 3 });
    expect(m.as.readU32(TEST_LAYOUT.data)).toBe(0);
  });

  it('should let a supervisor write a read-only page while WP is clear, but never user mode', () => {
    const sup = storeReadOnly(RESET_CR0 & ~WP, 0);
    expect(sup.r.reason).toBe('budget');
    expect(sup.m.as.readU32(TEST_LAYOUT.data)).toBe(0x1234);
    const usr = storeReadOnly(RESET_CR0 & ~WP, 3);
    expect(usr.r).toMatchObject({ reason: 'exception', vector: 14, errorCode: 7 });
  });

  it('should honour WP again once the guest sets it: the write translation cached while it was clear is gone', () => {
    // mov [rdi], eax; mov cr0, rbx; mov [rdi], eax — WP off for the first store, on for the second.
    const m = testMachine([...STORE, 0x0f, 0x22, 0xc3, ...STORE]);
    m.as.unmap(TEST_LAYOUT.data, 4096);
    m.as.map(TEST_LAYOUT.data, 4096, PageFlags.Present);
    m.cpu.cr0 = RESET_CR0 & ~WP;
    m.cpu.setReg(Reg.RDI, TEST_LAYOUT.data);
    m.cpu.setReg(Reg.RAX, 7n);
    m.cpu.setReg(Reg.RBX, RESET_CR0);
    expect(m.run()).toMatchObject({ reason: 'exception', vector: 14, errorCode: 3, rip: TEST_LAYOUT.code + 5n });
    expect(m.as.readU32(TEST_LAYOUT.data)).toBe(7);
  });
});

describe('MOV to CR4 and CR3', () => {
  it.each([
    ['SMEP (bit 20), which this CPU does not have', 0x20n | (1n << 20n)],
    ['PCIDE (bit 17), which CPUID does not report', 0x20n | (1n << 17n)],
    ['VME (bit 0)', 0x21n],
    ['PAE cleared in IA-32e mode', 0n],
  ])('should raise #GP(0) for CR4 with %s, CR4 unchanged', (_, value) => {
    const { m, r } = step(MOV_CR4_RAX, value);
    expect(r).toEqual(GP);
    expect(m.cpu.cr4).toBe(0x20n);
  });

  it('should take the bits it has: TSD and FSGSBASE beside PAE', () => {
    const { m, r } = step(MOV_CR4_RAX, 0x20n | 4n | (1n << 16n));
    expect(r.reason).toBe('budget');
    expect(m.cpu.cr4).toBe(0x10024n);
  });

  it('should raise #GP(0) for CR3 bits above MAXPHYADDR (36, with no CPUID leaf 80000008H)', () => {
    expect(step(MOV_CR3_RAX, 1n << 36n).r).toEqual(GP);
    const ok = step(MOV_CR3_RAX, 0xf_ffff_f000n);
    expect(ok.r.reason).toBe('budget');
    expect(ok.m.cpu.cr3).toBe(0xf_ffff_f000n);
  });

  it('should report PAE in CPUID leaf 1 (EDX bit 6), as every CPU in long mode has it', () => {
    const m = testMachine([0x0f, 0xa2]);
    m.cpu.setReg(Reg.RAX, 1n);
    expect(m.run().reason).toBe('hlt');
    expect((Number(m.cpu.getReg(Reg.RDX)) >>> 6) & 1).toBe(1);
  });
});

describe('WRMSR to EFER and LSTAR', () => {
  it('should raise #GP(0) for a reserved EFER bit and for LME cleared while paging', () => {
    for (const value of [0xd03n, 0xc01n]) {
      const { m, r } = step(WRMSR, value, Msr.EFER);
      expect(r, `EFER = ${value.toString(16)}`).toEqual(GP);
      expect(m.cpu.readMsrValue(Msr.EFER)).toBe(0xd01n);
    }
  });

  it('should ignore a written LMA and take NXE', () => {
    const { m, r } = step(WRMSR, 0x101n, Msr.EFER);
    expect(r.reason).toBe('budget');
    expect(m.cpu.readMsrValue(Msr.EFER)).toBe(0x501n);
  });

  it('should raise #GP(0) for a non-canonical LSTAR', () => {
    const { m, r } = step(WRMSR, 0x0000_8000_0000_0000n, Msr.LSTAR);
    expect(r).toEqual(GP);
    expect(m.cpu.readMsrValue(Msr.LSTAR)).toBe(0n);
  });
});
