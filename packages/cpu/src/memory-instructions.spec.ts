import { describe, expect, it } from 'vitest';
import { Reg } from './reg.js';
import { TEST_LAYOUT, testMachine } from './test-machine.fixture.js';

const DATA = TEST_LAYOUT.data;

describe('Cpu memory instructions', () => {
  it('should copy with rep movsb and leave RSI/RDI/RCX advanced', () => {
    const m = testMachine([0xf3, 0xa4]);
    m.as.write(DATA, Uint8Array.of(1, 2, 3, 4, 5));
    m.cpu.setReg(Reg.RSI, DATA);
    m.cpu.setReg(Reg.RDI, DATA + 0x100n);
    m.cpu.setReg(Reg.RCX, 5n);
    expect(m.run().reason).toBe('hlt');
    expect([...m.as.read(DATA + 0x100n, 5)]).toEqual([1, 2, 3, 4, 5]);
    expect([m.cpu.getReg(Reg.RSI), m.cpu.getReg(Reg.RDI), m.cpu.getReg(Reg.RCX)]).toEqual([
      DATA + 5n,
      DATA + 0x105n,
      0n,
    ]);
  });

  it('should copy backwards with DF set', () => {
    const m = testMachine([0xfd, 0xf3, 0xa4, 0xfc]); // std; rep movsb; cld
    m.as.write(DATA, Uint8Array.of(1, 2, 3));
    m.cpu.setReg(Reg.RSI, DATA + 2n);
    m.cpu.setReg(Reg.RDI, DATA + 0x102n);
    m.cpu.setReg(Reg.RCX, 3n);
    m.run();
    expect([...m.as.read(DATA + 0x100n, 3)]).toEqual([1, 2, 3]);
    expect(m.cpu.getReg(Reg.RSI)).toBe(DATA - 1n);
  });

  it('should fill with rep stosq and find a byte with repne scasb', () => {
    const m = testMachine([0xf3, 0x48, 0xab, 0xb0, 0x5a, 0xf2, 0xae]); // rep stosq; mov al, 0x5a; repne scasb
    m.as.writeU8(DATA + 0x23n, 0x5a);
    m.cpu.setReg(Reg.RAX, 0x0101010101010101n);
    m.cpu.setReg(Reg.RDI, DATA);
    m.cpu.setReg(Reg.RCX, 2n);
    m.run();
    expect(m.as.readU64(DATA + 8n)).toBe(0x0101010101010101n);
    expect(m.as.readU64(DATA + 16n)).toBe(0n);
    m.cpu.rip = TEST_LAYOUT.code + 3n;
    m.cpu.setReg(Reg.RDI, DATA);
    m.cpu.setReg(Reg.RCX, 0x100n);
    m.run();
    expect([m.cpu.getReg(Reg.RDI), m.cpu.getReg(Reg.RCX), m.cpu.rflags & 0x40]).toEqual([DATA + 0x24n, 0xdcn, 0x40]);
  });

  it('should stop repe cmpsb at the first difference', () => {
    const m = testMachine([0xf3, 0xa6]);
    m.as.write(DATA, Uint8Array.of(1, 2, 3, 4));
    m.as.write(DATA + 0x10n, Uint8Array.of(1, 2, 9, 4));
    m.cpu.setReg(Reg.RSI, DATA);
    m.cpu.setReg(Reg.RDI, DATA + 0x10n);
    m.cpu.setReg(Reg.RCX, 4n);
    m.run();
    expect([m.cpu.getReg(Reg.RCX), m.cpu.rflags & 0x41]).toEqual([1n, 0x1]);
  });

  it('should push immediates and memory, pop, and unwind a frame with leave', () => {
    // push 0x12; push [rsp]; pop rax; pop rbx; push rbp; mov rbp, rsp; sub rsp, 16; mov [rbp-8], 5; leave
    const m = testMachine([
      0x6a, 0x12, 0xff, 0x34, 0x24, 0x58, 0x5b, 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0x48, 0xc7, 0x45, 0xf8,
      0x05, 0x00, 0x00, 0x00, 0xc9,
    ]);
    m.cpu.setReg(Reg.RBP, 0xabcn);
    m.run();
    expect([m.cpu.getReg(Reg.RAX), m.cpu.getReg(Reg.RBX), m.cpu.getReg(Reg.RBP)]).toEqual([0x12n, 0x12n, 0xabcn]);
    expect(m.cpu.getReg(Reg.RSP)).toBe(TEST_LAYOUT.stackTop);
  });

  it('should dispatch through a jump table and return with ret imm16', () => {
    // lea rax, [rip+0x10]; jmp [rax+rdi*8]; (table at +0x17)
    const m = testMachine([0x48, 0x8d, 0x05, 0x10, 0, 0, 0, 0xff, 0x24, 0xf8]);
    const table = TEST_LAYOUT.code + 0x17n;
    m.as.writeU64(table + 8n, TEST_LAYOUT.code + 0x30n);
    m.as.write(TEST_LAYOUT.code + 0x30n, Uint8Array.of(0xc2, 0x10, 0x00)); // ret 16
    m.as.writeU64(TEST_LAYOUT.stackTop - 0x40n, TEST_LAYOUT.code + 10n);
    m.cpu.setReg(Reg.RSP, TEST_LAYOUT.stackTop - 0x40n);
    m.cpu.setReg(Reg.RDI, 1n);
    expect(m.run()).toEqual({ reason: 'hlt', rip: TEST_LAYOUT.code + 11n });
    expect(m.cpu.getReg(Reg.RSP)).toBe(TEST_LAYOUT.stackTop - 0x28n);
  });

  it('should execute locked read-modify-write instructions on memory', () => {
    // lock cmpxchg [rbx], rcx; lock xadd [rbx], rax; xchg [rbx], rax; lock inc dword [rbx]
    const m = testMachine([
      0xf0, 0x48, 0x0f, 0xb1, 0x0b, 0xf0, 0x48, 0x0f, 0xc1, 0x03, 0x48, 0x87, 0x03, 0xf0, 0xff, 0x03,
    ]);
    m.as.writeU64(DATA, 7n);
    m.cpu.setReg(Reg.RBX, DATA);
    m.cpu.setReg(Reg.RAX, 7n);
    m.cpu.setReg(Reg.RCX, 100n);
    m.run();
    // cmpxchg stored 100; xadd: [rbx]=107, rax=100; xchg: [rbx]=100, rax=107; inc: 101
    expect([m.as.readU64(DATA), m.cpu.getReg(Reg.RAX)]).toEqual([101n, 107n]);
  });

  it('should address a bit string beyond the operand with bts and a register offset', () => {
    const m = testMachine([0x48, 0x0f, 0xab, 0x0b]); // bts [rbx], rcx
    m.cpu.setReg(Reg.RBX, DATA + 0x10n);
    m.cpu.setReg(Reg.RCX, BigInt.asUintN(64, -63n));
    m.run();
    expect(m.as.readU64(DATA + 8n)).toBe(2n);
  });

  it('should update partial memory operands with carries (add byte; adc word)', () => {
    const m = testMachine([0x80, 0x03, 0x01, 0x66, 0x83, 0x53, 0x02, 0x01]);
    m.as.writeU32(DATA, 0x00ff00ff);
    m.cpu.setReg(Reg.RBX, DATA);
    m.run();
    expect(m.as.readU32(DATA)).toBe(0x01010000);
  });
});
