import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import { Cpu } from './cpu.js';
import { ExceptionVector } from './exception-vector.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';

const P = PageFlags.Present;
const W = PageFlags.Writable;
const U = PageFlags.User;
const CODE = 0x400000n;

/** A CPU executing `code` from a user-accessible code page, with RBX pointing at `target`. */
function setup(code: number[], cpl: 0 | 3 = 0): { cpu: Cpu; as: AddressSpace } {
  const as = new AddressSpace();
  as.map(CODE, 4096, P | U);
  as.write(CODE, Uint8Array.from(code));
  as.map(0x7f0000n, 4096, P | W | U);
  const cpu = new Cpu({ addressSpace: as });
  cpu.rip = CODE;
  cpu.setReg(Reg.RSP, 0x7f1000n);
  cpu.cs = cpl === 3 ? 0x33 : 0x10;
  return { cpu, as };
}

const LOAD = [0x48, 0x8b, 0x03]; // mov rax, [rbx]
const STORE = [0x48, 0x89, 0x03]; // mov [rbx], rax

describe('Cpu memory faults', () => {
  it.each([
    ['read of a missing page', LOAD, 0, 0, 0x0],
    ['write to a missing page', STORE, 0, 0, 0x2],
    ['write to a read-only page at CPL0 (CR0.WP)', STORE, P, 0, 0x3],
    ['user read of a supervisor page', LOAD, P | W, 3, 0x5],
    ['user write to a supervisor page', STORE, P | W, 3, 0x7],
    ['user read of a missing page', LOAD, 0, 3, 0x4],
  ] as const)('should raise #PF for a %s with the SDM error code', (_, code, flags, cpl, errorCode) => {
    const { cpu, as } = setup(code, cpl);
    if (flags) as.map(0x500000n, 4096, flags);
    cpu.setReg(Reg.RBX, 0x500010n);
    cpu.setReg(Reg.RAX, 7n);
    const r = cpu.step();
    expect(r).toEqual({ reason: 'exception', vector: ExceptionVector.PageFault, errorCode, cr2: 0x500010n, rip: CODE });
    expect(cpu.cr2).toBe(0x500010n);
    expect(cpu.getReg(Reg.RAX)).toBe(7n);
  });

  it('should raise #PF with the I/D bit on a fetch from an NX page', () => {
    const { cpu, as } = setup([0xff, 0xe3]); // jmp rbx
    as.map(0x500000n, 4096, P | PageFlags.NoExecute);
    cpu.setReg(Reg.RBX, 0x500000n);
    expect(cpu.step().reason).toBe('budget');
    expect(cpu.step()).toEqual({ reason: 'exception', vector: 14, errorCode: 0x11, cr2: 0x500000n, rip: 0x500000n });
  });

  it('should raise #PF with the U bit on a user fetch from a supervisor page', () => {
    const { cpu, as } = setup([0x90], 3);
    as.protect(CODE, 4096, P);
    expect(cpu.step()).toMatchObject({ vector: 14, errorCode: 0x15, cr2: CODE });
  });

  it('should read and write across a page boundary', () => {
    const { cpu, as } = setup([...STORE, 0x48, 0x8b, 0x0b]); // mov [rbx], rax; mov rcx, [rbx]
    as.map(0x500000n, 8192, P | W);
    cpu.setReg(Reg.RBX, 0x500ffdn);
    cpu.setReg(Reg.RAX, 0x1122334455667788n);
    cpu.run(2);
    expect(cpu.getReg(Reg.RCX)).toBe(0x1122334455667788n);
    expect(as.readU8(0x501000n)).toBe(0x55);
  });

  it('should fault on the second page of a crossing write without writing the first', () => {
    const { cpu, as } = setup(STORE);
    as.map(0x500000n, 4096, P | W);
    as.map(0x501000n, 4096, P);
    cpu.setReg(Reg.RBX, 0x500ffcn);
    cpu.setReg(Reg.RAX, -1n);
    expect(cpu.step()).toMatchObject({ vector: 14, errorCode: 3, cr2: 0x501000n, rip: CODE });
    expect(as.readU32(0x500ffcn)).toBe(0);
  });

  it('should raise #GP(0) on a non-canonical address', () => {
    const { cpu } = setup(LOAD);
    cpu.setReg(Reg.RBX, 0x0000800000000000n);
    expect(cpu.step()).toEqual({ reason: 'exception', vector: 13, errorCode: 0, rip: CODE });
  });

  it('should leave RSP unchanged when a push faults', () => {
    const { cpu } = setup([0x50]); // push rax
    cpu.setReg(Reg.RSP, 0x600000n);
    expect(cpu.step()).toMatchObject({ vector: 14, errorCode: 2, cr2: 0x5ffff8n });
    expect(cpu.getReg(Reg.RSP)).toBe(0x600000n);
  });

  it('should fetch an instruction straddling two pages and fault when the second is missing', () => {
    const as = new AddressSpace();
    as.map(0x400000n, 4096, P);
    as.write(0x400ffen, Uint8Array.of(0x48, 0xc7)); // mov rax, imm32 continues on the next page
    const cpu = new Cpu({ addressSpace: as });
    cpu.rip = 0x400ffen;
    expect(cpu.step()).toMatchObject({ vector: 14, errorCode: 0x10, cr2: 0x401000n, rip: 0x400ffen });
    as.map(0x401000n, 4096, P);
    as.write(0x401000n, Uint8Array.of(0xc0, 0x2a, 0, 0, 0));
    expect(cpu.step().reason).toBe('budget');
    expect(cpu.getReg(Reg.RAX)).toBe(42n);
  });
});

describe('Cpu #DE', () => {
  it.each([
    ['div by zero', [0x48, 0xf7, 0xf3], 5n, 0n, 0n],
    ['idiv overflow', [0x48, 0xf7, 0xfb], 0x8000000000000000n, -1n, -1n],
    ['div quotient overflow', [0xf7, 0xf3], 0n, 1n, 1n],
    ['8-bit div overflow', [0xf6, 0xf3], 0x1234n, 0x10n, 0n],
  ] as const)('should raise #DE on %s and leave the registers', (_, code, rax, rbx, rdx) => {
    const { cpu } = setup([...code]);
    cpu.setReg(Reg.RAX, rax);
    cpu.setReg(Reg.RBX, rbx);
    cpu.setReg(Reg.RDX, rdx);
    expect(cpu.step()).toEqual({ reason: 'exception', vector: 0, rip: CODE });
    expect(cpu.getReg(Reg.RAX)).toBe(BigInt.asUintN(64, rax));
    expect(cpu.getReg(Reg.RDX)).toBe(BigInt.asUintN(64, rdx));
  });
});
