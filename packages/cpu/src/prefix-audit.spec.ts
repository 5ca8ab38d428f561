import { describe, expect, it } from 'vitest';
import { Msr } from './msr.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';
import { TEST_LAYOUT, testMachine } from './test-machine.fixture.js';

const DATA = TEST_LAYOUT.data;
const ZF = 0x40;

/**
 * Encodings whose prefixes change what they do — each exact or #UD, never silently the unprefixed
 * instruction — and the instructions added with them (cmpxchg8b/16b, FSGSBASE). Found by running
 * FEX-Emu's unittests/ASM integer tests (packages/cpu/test/fex/run-fex-asm.mjs): `66 C9` ran as a
 * 64-bit leave and `67 E2` counted in RCX. Where the SDM leaves a detail open, the expected values
 * were measured on the host CPU (an Intel part) with gcc inline assembly, as the comments say.
 */
describe('prefixed encodings', () => {
  it('should run 66 C9 as a 16-bit leave: RSP = RBP, then a 2-byte pop into BP', () => {
    // FEX Primary_C9_o16: RBP's upper 48 bits stay, RSP moves by 2.
    const m = testMachine([0x66, 0xc9]);
    m.as.writeU16(DATA + 0x1en, 0x4748);
    m.cpu.setReg(Reg.RBP, DATA + 0x1en);
    m.cpu.setReg(Reg.RSP, DATA + 0x10n);
    expect(m.run().reason).toBe('hlt');
    expect(m.cpu.getReg(Reg.RSP)).toBe(DATA + 0x20n);
    expect(m.cpu.getReg(Reg.RBP)).toBe((DATA & ~0xffffn) | 0x4748n);
  });

  it('should count in ECX under 67 E2 (a32 loop), writing it as a 32-bit register', () => {
    // Measured: a32 loop with RCX 0x1_0000_0002 leaves 1, 0x1_0000_0000 leaves 0xffffffff,
    // 0xffffffff_00000001 leaves 0 (the upper half cleared each time).
    for (const [before, after, taken] of [
      [0x1_0000_0002n, 1n, true],
      [0x1_0000_0000n, 0xffffffffn, true],
      [0xffffffff_00000001n, 0n, false],
    ] as const) {
      // a32 loop +2 (over a hlt); hlt; mov al, 1 ; (hlt)
      const m = testMachine([0x67, 0xe2, 0x01, 0xf4, 0xb0, 0x01]);
      m.cpu.setReg(Reg.RCX, before);
      m.cpu.setReg(Reg.RAX, 0n);
      expect(m.run().reason).toBe('hlt');
      expect(m.cpu.getReg(Reg.RCX)).toBe(after);
      expect(m.cpu.getReg(Reg.RAX)).toBe(taken ? 1n : 0n);
    }
    // FEX LoopAddressSizeCheck: with RCX = 0x1_0000_0001, a32 loop runs once, not 2^32 + 1 times.
    const m = testMachine([0xff, 0xc3, 0x67, 0xe2, 0xfb]); // inc ebx; a32 loop -5
    m.cpu.setReg(Reg.RCX, 0x1_0000_0001n);
    expect(m.run().reason).toBe('hlt');
    expect(m.cpu.getReg(Reg.RBX)).toBe(1n);
  });

  it('should test ECX alone under 67 E3 (jecxz), and loop while ZF holds under E1/E0', () => {
    // Measured: jecxz with RCX = 0x1_0000_0000 is taken.
    const j = testMachine([0x67, 0xe3, 0x01, 0xf4, 0xb0, 0x01]);
    j.cpu.setReg(Reg.RCX, 0x1_0000_0000n);
    j.run();
    expect(j.cpu.getReg(Reg.RAX) & 0xffn).toBe(1n);
    // loope: xor eax, eax sets ZF; with RCX = 3 it runs to RCX = 0.
    const e = testMachine([0x31, 0xc0, 0xe1, 0xfe]); // xor eax,eax; loope -2
    e.cpu.setReg(Reg.RCX, 3n);
    e.run();
    expect(e.cpu.getReg(Reg.RCX)).toBe(0n);
    // loopne with ZF set stops after one decrement.
    const n = testMachine([0x31, 0xc0, 0xe0, 0xfe]); // xor eax,eax; loopne -2
    n.cpu.setReg(Reg.RCX, 3n);
    n.run();
    expect(n.cpu.getReg(Reg.RCX)).toBe(2n);
  });

  it('should push and pop the 16-bit FLAGS under 66 9C / 66 9D', () => {
    const m = testMachine([0x66, 0x9c, 0x66, 0x9d]);
    m.cpu.rflags = 0x203;
    m.cpu.setReg(Reg.RSP, TEST_LAYOUT.stackTop);
    m.cpu.step();
    expect(m.cpu.getReg(Reg.RSP)).toBe(TEST_LAYOUT.stackTop - 2n);
    expect(m.as.readU16(TEST_LAYOUT.stackTop - 2n)).toBe(0x203);
    m.as.writeU16(TEST_LAYOUT.stackTop - 2n, 0x2c3); // ZF SF CF, IF kept
    m.cpu.step();
    expect(m.cpu.getReg(Reg.RSP)).toBe(TEST_LAYOUT.stackTop);
    expect(m.cpu.rflags & 0xfff).toBe(0x2c3);
  });

  it('should raise #UD for 66 0F C8 (bswap of a 16-bit register: an undefined result)', () => {
    const m = testMachine([0x66, 0x0f, 0xc8]);
    expect(m.run()).toMatchObject({ reason: 'exception', vector: 6 });
  });

  it('should run the reserved-NOP hints (0F 18 with a register operand) as nop', () => {
    const m = testMachine([0x0f, 0x18, 0xcb]);
    m.cpu.setReg(Reg.RBX, 7n);
    expect(m.run().reason).toBe('hlt');
    expect(m.cpu.getReg(Reg.RBX)).toBe(7n);
  });
});

describe('cmpxchg8b and cmpxchg16b', () => {
  it('should store ECX:EBX on a match and leave RAX/RDX alone; load EDX:EAX zero-extended otherwise', () => {
    // Measured with lock cmpxchg8b: exactly these values.
    const m = testMachine([0xf0, 0x0f, 0xc7, 0x0f, 0xf0, 0x0f, 0xc7, 0x0f]); // lock cmpxchg8b [rdi] × 2
    m.as.writeU64(DATA, 0x11111111_22222222n);
    m.cpu.setReg(Reg.RDI, DATA);
    m.cpu.setReg(Reg.RAX, 0xaaaaaaaa_22222222n);
    m.cpu.setReg(Reg.RDX, 0xbbbbbbbb_11111111n);
    m.cpu.setReg(Reg.RBX, 0x33333333n);
    m.cpu.setReg(Reg.RCX, 0x44444444n);
    m.cpu.step();
    expect(m.cpu.rflags & ZF).toBe(ZF);
    expect(m.as.readU64(DATA)).toBe(0x44444444_33333333n);
    expect([m.cpu.getReg(Reg.RAX), m.cpu.getReg(Reg.RDX)]).toEqual([0xaaaaaaaa_22222222n, 0xbbbbbbbb_11111111n]);
    m.cpu.setReg(Reg.RAX, 0xaaaaaaaa_00000005n);
    m.cpu.setReg(Reg.RDX, 0xbbbbbbbb_00000006n);
    m.cpu.step();
    expect(m.cpu.rflags & ZF).toBe(0);
    expect([m.cpu.getReg(Reg.RAX), m.cpu.getReg(Reg.RDX)]).toEqual([0x33333333n, 0x44444444n]);
    expect(m.as.readU64(DATA)).toBe(0x44444444_33333333n);
  });

  it('should compare RDX:RAX with an aligned m128, store RCX:RBX, and keep the other flags', () => {
    const m = testMachine([0x48, 0x0f, 0xc7, 0x0f, 0x48, 0x0f, 0xc7, 0x0f]); // cmpxchg16b [rdi] × 2
    m.as.writeU64(DATA, 1n);
    m.as.writeU64(DATA + 8n, 2n);
    m.cpu.setReg(Reg.RDI, DATA);
    m.cpu.setReg(Reg.RAX, 1n);
    m.cpu.setReg(Reg.RDX, 2n);
    m.cpu.setReg(Reg.RBX, 0x1234_5678_9abc_def0n);
    m.cpu.setReg(Reg.RCX, 0xfedc_ba98_7654_3210n);
    m.cpu.rflags = 0x203; // CF set
    m.cpu.step();
    expect(m.cpu.rflags & 0xfff).toBe(0x243);
    expect([m.as.readU64(DATA), m.as.readU64(DATA + 8n)]).toEqual([0x1234_5678_9abc_def0n, 0xfedc_ba98_7654_3210n]);
    m.cpu.step();
    expect(m.cpu.rflags & 0xfff).toBe(0x203);
    expect([m.cpu.getReg(Reg.RAX), m.cpu.getReg(Reg.RDX)]).toEqual([0x1234_5678_9abc_def0n, 0xfedc_ba98_7654_3210n]);
  });

  it('should raise #GP(0) for a misaligned m128 and #PF on a read-only page, changing nothing', () => {
    const gp = testMachine([0x48, 0x0f, 0xc7, 0x0f]);
    gp.cpu.setReg(Reg.RDI, DATA + 8n);
    expect(gp.run()).toMatchObject({ reason: 'exception', vector: 13, errorCode: 0 });
    const pf = testMachine([0x48, 0x0f, 0xc7, 0x0f]);
    pf.as.writeU64(DATA, 5n);
    pf.as.protect(DATA, 4096, PageFlags.Present | PageFlags.User);
    pf.cpu.setReg(Reg.RDI, DATA);
    pf.cpu.setReg(Reg.RAX, 5n);
    const r = pf.run();
    expect(r).toMatchObject({ reason: 'exception', vector: 14 });
    expect(pf.cpu.rip).toBe(TEST_LAYOUT.code);
    expect([pf.cpu.getReg(Reg.RAX), pf.as.readU64(DATA)]).toEqual([5n, 5n]);
  });

  it('should say so in CPUID: CX8 and CX16', () => {
    const m = testMachine([0x0f, 0xa2]);
    m.cpu.setReg(Reg.RAX, 1n);
    m.run();
    expect(m.cpu.getReg(Reg.RCX) & (1n << 13n)).toBe(1n << 13n);
    expect(m.cpu.getReg(Reg.RDX) & (1n << 8n)).toBe(1n << 8n);
  });
});

describe('FSGSBASE', () => {
  const RDFSBASE_RAX = [0xf3, 0x48, 0x0f, 0xae, 0xc0];
  const WRGSBASE_RBX = [0xf3, 0x48, 0x0f, 0xae, 0xdb];
  const WRFSBASE_EBX = [0xf3, 0x0f, 0xae, 0xd3];

  it('should raise #UD while CR4.FSGSBASE is clear, and say in CPUID leaf 7 that it exists', () => {
    const m = testMachine(RDFSBASE_RAX);
    expect(m.run()).toMatchObject({ reason: 'exception', vector: 6 });
    const c = testMachine([0x0f, 0xa2]);
    c.cpu.setReg(Reg.RAX, 7n);
    c.cpu.setReg(Reg.RCX, 0n);
    c.run();
    expect(c.cpu.getReg(Reg.RBX) & 1n).toBe(1n);
  });

  it('should read and write the bases, 32-bit forms zero-extended, at CPL 0 and 3', () => {
    const m = testMachine([...WRGSBASE_RBX, ...WRFSBASE_EBX, ...RDFSBASE_RAX]);
    m.cpu.cr4 |= 1n << 16n;
    m.cpu.setReg(Reg.RBX, 0xffff_8880_1234_5678n);
    expect(m.run().reason).toBe('hlt');
    expect(m.cpu.gsBase).toBe(0xffff_8880_1234_5678n);
    expect(m.cpu.fsBase).toBe(0x1234_5678n);
    expect(m.cpu.getReg(Reg.RAX)).toBe(0x1234_5678n);
    const user = testMachine(RDFSBASE_RAX);
    user.cpu.cr4 |= 1n << 16n;
    user.cpu.cs = 0x33;
    user.cpu.fsBase = 0x7fff_0000_1000n;
    user.cpu.step();
    expect(user.cpu.getReg(Reg.RAX)).toBe(0x7fff_0000_1000n);
  });

  it('should raise #GP(0) for a non-canonical base, from wrfsbase and from wrmsr', () => {
    const m = testMachine(WRGSBASE_RBX);
    m.cpu.cr4 |= 1n << 16n;
    m.cpu.setReg(Reg.RBX, 0x0000_8000_0000_0000n);
    expect(m.run()).toMatchObject({ reason: 'exception', vector: 13, errorCode: 0 });
    expect(m.cpu.gsBase).toBe(0n);
    const w = testMachine([0x0f, 0x30]); // wrmsr
    w.cpu.setReg(Reg.RCX, BigInt(Msr.FS_BASE));
    w.cpu.setReg(Reg.RDX, 0x8000n);
    w.cpu.setReg(Reg.RAX, 0n);
    expect(w.run()).toMatchObject({ reason: 'exception', vector: 13, errorCode: 0 });
  });
});
