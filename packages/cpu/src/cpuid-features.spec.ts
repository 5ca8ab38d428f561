import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import { Cpu } from './cpu.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';
import { TEST_LAYOUT, testMachine } from './test-machine.fixture.js';

/** CPUID leaf (and subleaf) → [eax, ebx, ecx, edx]. */
function cpuid(leaf: number, subleaf = 0): number[] {
  const m = testMachine([0x0f, 0xa2]);
  m.cpu.setReg(Reg.RAX, BigInt(leaf));
  m.cpu.setReg(Reg.RCX, BigInt(subleaf));
  expect(m.run().reason).toBe('hlt');
  return [Reg.RAX, Reg.RBX, Reg.RCX, Reg.RDX].map((r) => Number(m.cpu.getReg(r)));
}

const DATA = TEST_LAYOUT.data;

/**
 * Each feature bit the CPU reports, with an instruction of that feature: software that reads CPUID
 * and then uses what it says must not meet a #UD (it did for BMI1: andn and the bls* raised #UD
 * while leaf 7 reported them).
 */
const FEATURES: {
  name: string;
  leaf: number;
  reg: 1 | 2 | 3;
  bit: number;
  code: number[];
  setUp?: (m: ReturnType<typeof testMachine>) => void;
}[] = [
  { name: 'TSC (rdtsc)', leaf: 1, reg: 3, bit: 4, code: [0x0f, 0x31] },
  {
    name: 'MSR (rdmsr of EFER)',
    leaf: 1,
    reg: 3,
    bit: 5,
    code: [0x0f, 0x32],
    setUp: (m) => m.cpu.setReg(Reg.RCX, 0xc0000080n),
  },
  {
    name: 'CX8 (cmpxchg8b [rdi])',
    leaf: 1,
    reg: 3,
    bit: 8,
    code: [0x0f, 0xc7, 0x0f],
    setUp: (m) => m.cpu.setReg(Reg.RDI, DATA),
  },
  { name: 'CMOV (cmove rax, rbx)', leaf: 1, reg: 3, bit: 15, code: [0x48, 0x0f, 0x44, 0xc3] },
  {
    name: 'CX16 (cmpxchg16b [rdi])',
    leaf: 1,
    reg: 2,
    bit: 13,
    code: [0x48, 0x0f, 0xc7, 0x0f],
    setUp: (m) => m.cpu.setReg(Reg.RDI, DATA),
  },
  { name: 'POPCNT (popcnt rax, rbx)', leaf: 1, reg: 2, bit: 23, code: [0xf3, 0x48, 0x0f, 0xb8, 0xc3] },
  {
    name: 'FSGSBASE (rdfsbase rax, with CR4.FSGSBASE)',
    leaf: 7,
    reg: 1,
    bit: 0,
    code: [0xf3, 0x48, 0x0f, 0xae, 0xc0],
    setUp: (m) => {
      m.cpu.cr4 |= 1n << 16n;
    },
  },
  { name: 'BMI1 (andn rax, rbx, rcx)', leaf: 7, reg: 1, bit: 3, code: [0xc4, 0xe2, 0xe0, 0xf2, 0xc1] },
  { name: 'BMI1 (bextr rax, rbx, rcx)', leaf: 7, reg: 1, bit: 3, code: [0xc4, 0xe2, 0xf0, 0xf7, 0xc3] },
  { name: 'BMI1 (blsi rax, rbx)', leaf: 7, reg: 1, bit: 3, code: [0xc4, 0xe2, 0xf8, 0xf3, 0xdb] },
  { name: 'BMI1 (blsmsk rax, rbx)', leaf: 7, reg: 1, bit: 3, code: [0xc4, 0xe2, 0xf8, 0xf3, 0xd3] },
  { name: 'BMI1 (blsr rax, rbx)', leaf: 7, reg: 1, bit: 3, code: [0xc4, 0xe2, 0xf8, 0xf3, 0xcb] },
  { name: 'BMI1 (tzcnt rax, rbx)', leaf: 7, reg: 1, bit: 3, code: [0xf3, 0x48, 0x0f, 0xbc, 0xc3] },
  { name: 'LZCNT (lzcnt rax, rbx)', leaf: 0x80000001, reg: 2, bit: 5, code: [0xf3, 0x48, 0x0f, 0xbd, 0xc3] },
  { name: 'SYSCALL (syscall)', leaf: 0x80000001, reg: 3, bit: 11, code: [0x0f, 0x05] },
];

describe('CPUID', () => {
  it.each(FEATURES)('should report $name, and run it', (f) => {
    expect((cpuid(f.leaf)[f.reg] >>> f.bit) & 1).toBe(1);
    const m = testMachine(f.code);
    f.setUp?.(m);
    const r = m.cpu.step();
    expect(r.reason === 'exception' && r.vector === 6, `#UD at ${f.name}`).toBe(false);
  });

  it('should report no BMI2, AVX or SSE, which the CPU does not run', () => {
    expect((cpuid(7)[1] >>> 8) & 1).toBe(0); // BMI2
    expect((cpuid(7)[1] >>> 5) & 1).toBe(0); // AVX2
    expect((cpuid(1)[2] >>> 28) & 1).toBe(0); // AVX
    expect((cpuid(1)[3] >>> 25) & 3).toBe(0); // SSE, SSE2
    // pdep (BMI2): #UD, as on a CPU without BMI2.
    expect(testMachine([0xc4, 0xe2, 0xe3, 0xf5, 0xc1]).cpu.step()).toMatchObject({ reason: 'exception', vector: 6 });
  });
});

describe('BMI1 beside the registers', () => {
  it('should take its source from memory, and change nothing when that load faults', () => {
    // andn rax, rbx, [rdi]; blsr rdx, [rdi]
    const m = testMachine([0xc4, 0xe2, 0xe0, 0xf2, 0x07, 0xc4, 0xe2, 0xe8, 0xf3, 0x0f]);
    m.cpu.setReg(Reg.RDI, DATA);
    m.as.writeU64(DATA, 0xf0f0_0000_0000_ff00n);
    m.cpu.setReg(Reg.RBX, 0x3000_0000_0000_0f00n);
    expect(m.run().reason).toBe('hlt');
    expect(m.cpu.getReg(Reg.RAX)).toBe(0xc0f0_0000_0000_f000n);
    expect(m.cpu.getReg(Reg.RDX)).toBe(0xf0f0_0000_0000_fe00n);
    const fault = testMachine([0xc4, 0xe2, 0xe0, 0xf2, 0x07]);
    fault.cpu.setReg(Reg.RDI, 0x1000n);
    fault.cpu.setReg(Reg.RAX, 0x1234n);
    expect(fault.cpu.step()).toMatchObject({ reason: 'exception', vector: 14, rip: TEST_LAYOUT.code });
    expect(fault.cpu.getReg(Reg.RAX)).toBe(0x1234n);
  });

  it('should compute a hot loop around andn and blsr as BigInt arithmetic does, compiled and interpreted', () => {
    // loop: andn rax, rbx, rcx; blsr rcx, rcx; add rbx, rax; dec rsi; jnz loop
    const body = [0xc4, 0xe2, 0xe0, 0xf2, 0xc1, 0xc4, 0xe2, 0xf0, 0xf3, 0xc9, 0x48, 0x01, 0xc3, 0x48, 0xff, 0xce];
    const code = Uint8Array.from([...body, 0x75, -(body.length + 2) & 0xff, 0xf4]);
    const u64 = (v: bigint) => BigInt.asUintN(64, v);
    let [rax, rbx, rcx] = [0n, 0x0123_4567_89ab_cdefn, 0xdead_beef_cafe_f00dn];
    for (let n = 0; n < 500; n++) {
      rax = u64(~rbx & rcx);
      rcx = u64((rcx - 1n) & rcx);
      rbx = u64(rbx + rax);
    }
    for (const jit of [false, { threshold: 1 }] as const) {
      const as = new AddressSpace();
      as.map(TEST_LAYOUT.code, 4096, PageFlags.Present | PageFlags.Writable);
      as.write(TEST_LAYOUT.code, code);
      const cpu = new Cpu({ addressSpace: as, jit });
      cpu.rip = TEST_LAYOUT.code;
      cpu.setReg(Reg.RBX, 0x0123_4567_89ab_cdefn);
      cpu.setReg(Reg.RCX, 0xdead_beef_cafe_f00dn);
      cpu.setReg(Reg.RSI, 500n);
      expect(cpu.run(1_000_000).reason).toBe('hlt');
      expect(
        [Reg.RAX, Reg.RBX, Reg.RCX].map((r) => cpu.getReg(r)),
        `jit ${JSON.stringify(jit)}`,
      ).toEqual([rax, rbx, rcx]);
      expect(cpu.retired).toBe(500 * 5 + 1);
    }
  });
});
