import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import { Cpu } from './cpu.js';
import { Msr } from './msr.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';
import { Rflags } from './rflags.js';
import type { TrapEvent } from './trap-event.js';

const P = PageFlags.Present;
const W = PageFlags.Writable;
const U = PageFlags.User;
const CODE = 0x400000n;
const KERNEL = 0xffffffff81000000n;

function setup(code: number[], cpl: 0 | 3 = 0): { cpu: Cpu; as: AddressSpace } {
  const as = new AddressSpace();
  as.map(CODE, 4096, P | W | U);
  as.write(CODE, Uint8Array.from(code));
  as.map(0x7f0000n, 4096, P | W | U);
  as.map(KERNEL, 4096, P | W);
  const cpu = new Cpu({ addressSpace: as });
  cpu.rip = CODE;
  cpu.setReg(Reg.RSP, 0x7f1000n);
  cpu.cs = cpl === 3 ? 0x33 : 0x10;
  return { cpu, as };
}

describe(Cpu.prototype.run, () => {
  it('should report int3 as a trap with RIP after the 0xcc', () => {
    const { cpu } = setup([0x90, 0xcc, 0x90]);
    expect(cpu.run(10)).toEqual({ reason: 'exception', vector: 3, rip: CODE + 2n });
    expect(cpu.retired).toBe(2);
  });

  it('should report int n with its vector and RIP after it', () => {
    const { cpu } = setup([0xcd, 0x80]);
    expect(cpu.run(10)).toEqual({ reason: 'exception', vector: 0x80, rip: CODE + 2n });
  });

  it('should stop at hlt with RIP after it', () => {
    const { cpu } = setup([0x90, 0xf4]);
    expect(cpu.run(10)).toEqual({ reason: 'hlt', rip: CODE + 2n });
  });

  it('should stop when the virtual budget is spent', () => {
    const { cpu } = setup([0xeb, 0xfe]); // jmp .
    expect(cpu.run(5)).toEqual({ reason: 'budget', rip: CODE });
    expect(cpu.retired).toBe(5);
  });

  it('should single-step after popf sets TF but not on the popf itself', () => {
    // pushfq; or dword [rsp], 0x100; popfq; nop; nop
    const { cpu } = setup([0x9c, 0x81, 0x0c, 0x24, 0x00, 0x01, 0x00, 0x00, 0x9d, 0x90, 0x90]);
    expect(cpu.run(100)).toEqual({ reason: 'exception', vector: 1, rip: CODE + 10n, singleStep: true });
    expect(cpu.run(100)).toEqual({ reason: 'exception', vector: 1, rip: CODE + 11n, singleStep: true });
  });

  // pushq imm (sign-extended) ; popfq ; hlt — loads RFLAGS from `value` through popf.
  function popf(value: number, cpl: 0 | 3, rflags: number): number {
    const { cpu } = setup([0x68, ...new Uint8Array(new Int32Array([value]).buffer), 0x9d, 0x90], cpl);
    cpu.rflags = rflags;
    cpu.run(3);
    return cpu.rflags;
  }

  it('should keep IF and IOPL when popf runs at CPL 3 with IOPL 0', () => {
    expect(popf(0x3002, 3, 0x202) & 0x3200).toBe(0x200);
  });

  it('should let popf change IF but not IOPL at CPL 3 when IOPL is 3', () => {
    expect(popf(0x0002, 3, 0x3202) & 0x3200).toBe(0x3000);
  });

  it('should let popf change IF and IOPL at CPL 0', () => {
    expect(popf(0x3002, 0, 0x202) & 0x3200).toBe(0x3000);
  });

  it('should not also single-step an instruction that faults', () => {
    const { cpu } = setup([0x48, 0x8b, 0x03]); // mov rax, [rbx]
    cpu.rflags = 0x302;
    cpu.setReg(Reg.RBX, 0x900000n);
    expect(cpu.step()).toMatchObject({ vector: 14, rip: CODE });
  });

  it('should take a pending interrupt only with IF=1 and after the STI shadow', () => {
    const { cpu } = setup([0xfb, 0x90, 0x90, 0xf4]); // sti; nop; nop; hlt
    cpu.rflags = 0x2;
    cpu.raiseInterrupt(0x20);
    expect(cpu.run(100)).toEqual({ reason: 'interrupt', vector: 0x20, rip: CODE + 2n });
    expect(cpu.run(100)).toEqual({ reason: 'hlt', rip: CODE + 4n });
  });

  it('should keep an interrupt pending while IF=0', () => {
    const { cpu } = setup([0x90, 0xf4]);
    cpu.rflags = 0x2;
    cpu.raiseInterrupt(0x21);
    expect(cpu.run(100).reason).toBe('hlt');
    cpu.rflags = 0x202;
    expect(cpu.run(100)).toEqual({ reason: 'interrupt', vector: 0x21, rip: CODE + 2n });
  });

  it('should return at a Gate page without executing anything there', () => {
    const { cpu, as } = setup([0xff, 0xd3, 0xf4]); // call rbx; hlt
    as.map(0xffffffff90000000n, 4096, P | PageFlags.Gate);
    cpu.setReg(Reg.RBX, 0xffffffff90000010n);
    expect(cpu.run(100)).toEqual({ reason: 'gate', rip: 0xffffffff90000010n });
    expect(cpu.retired).toBe(1);
  });

  it('should go on in the loop after a gate its gate hook handled in place, the gate costing nothing', () => {
    // call rbx (to the gate); the hook sends rip to the nop; hlt
    const { cpu, as } = setup([0xff, 0xd3, 0x90, 0xf4]);
    as.map(0xffffffff90000000n, 4096, P | PageFlags.Gate);
    cpu.setReg(Reg.RBX, 0xffffffff90000010n);
    const seen: bigint[] = [];
    cpu.gateHook = (c) => {
      seen.push(c.rip);
      if (c.rip !== 0xffffffff90000010n) return false;
      c.rip = CODE + 2n;
      return true;
    };
    expect(cpu.run(100)).toEqual({ reason: 'hlt', rip: CODE + 4n });
    expect(seen).toEqual([0xffffffff90000010n]);
    expect(cpu.retired).toBe(3); // call, nop, hlt: the gate is no instruction
    cpu.rip = CODE;
    cpu.setReg(Reg.RBX, 0xffffffff90000020n);
    expect(cpu.run(100)).toEqual({ reason: 'gate', rip: 0xffffffff90000020n });
  });

  it('should answer every gate exit with the same result object, naming the gate reached', () => {
    const { cpu, as } = setup([0xff, 0xd3, 0xff, 0xd3]); // call rbx; call rbx
    as.map(0xffffffff90000000n, 4096, P | PageFlags.Gate);
    cpu.setReg(Reg.RBX, 0xffffffff90000010n);
    const first = cpu.run(100);
    expect(first).toEqual({ reason: 'gate', rip: 0xffffffff90000010n });
    cpu.rip = CODE + 2n;
    cpu.setReg(Reg.RBX, 0xffffffff90000020n);
    expect(cpu.run(100)).toBe(first);
    expect(first.rip).toBe(0xffffffff90000020n);
  });

  it('should run two code pages that share a fetch-TLB slot alternately, each from its own bytes', () => {
    const B = CODE + 0x100000n; // 256 pages on: the same slot of the direct-mapped fetch TLB
    const rel = (from: bigint, to: bigint) => [...new Uint8Array(new Int32Array([Number(to - from)]).buffer)];
    // A: mov $1,%eax; jmp B; (A+10) add $4,%eax; jmp B+8
    const { cpu, as } = setup([
      0xb8,
      1,
      0,
      0,
      0,
      0xe9,
      ...rel(CODE + 10n, B),
      0x83,
      0xc0,
      4,
      0xe9,
      ...rel(CODE + 18n, B + 8n),
    ]);
    // B: add $2,%eax; jmp A+10; (B+8) add $8,%eax; hlt
    as.map(B, 4096, P | W | U);
    as.write(B, Uint8Array.from([0x83, 0xc0, 2, 0xe9, ...rel(B + 8n, CODE + 10n), 0x83, 0xc0, 8, 0xf4]));
    expect(cpu.run(100)).toEqual({ reason: 'hlt', rip: B + 12n });
    expect(cpu.getReg(Reg.RAX)).toBe(15n);
  });

  it('should fault on a code page unmapped after another page took its fetch-TLB slot', () => {
    const B = CODE + 0x100000n;
    const rel = (from: bigint, to: bigint) => [...new Uint8Array(new Int32Array([Number(to - from)]).buffer)];
    const { cpu, as } = setup([0xe9, ...rel(CODE + 5n, B)]); // A: jmp B
    as.map(B, 4096, P | W | U);
    as.write(B, Uint8Array.from([0xf4, 0xe9, ...rel(B + 6n, CODE)])); // B: hlt; jmp A
    expect(cpu.run(100)).toEqual({ reason: 'hlt', rip: B + 1n });
    as.unmap(CODE, 4096);
    expect(cpu.run(100)).toMatchObject({ reason: 'exception', vector: 14, cr2: CODE });
  });

  it('should run the new bytes of the page before after the other page rewrote them', () => {
    const B = CODE + 0x2000n;
    const rel = (from: bigint, to: bigint) => [...new Uint8Array(new Int32Array([Number(to - from)]).buffer)];
    // A: call B; mov $1,%eax; hlt — B patches the immediate of A's mov to 2, then returns.
    const { cpu, as } = setup([0xe8, ...rel(CODE + 5n, B), 0xb8, 1, 0, 0, 0, 0xf4]);
    as.map(B, 4096, P | W | U);
    as.write(B, Uint8Array.from([0xc6, 0x05, ...rel(B + 7n, CODE + 6n), 2, 0xc3])); // movb $2,A+6(%rip); ret
    cpu.setReg(Reg.RSP, 0x7f1000n);
    expect(cpu.run(100)).toEqual({ reason: 'hlt', rip: CODE + 11n });
    expect(cpu.getReg(Reg.RAX)).toBe(2n);
    // Again, with both pages decoded and cached: A's mov was decoded as `mov $2`; B now writes 3.
    as.write(B + 6n, Uint8Array.from([3]));
    cpu.rip = CODE;
    cpu.setReg(Reg.RSP, 0x7f1000n);
    expect(cpu.run(100)).toEqual({ reason: 'hlt', rip: CODE + 11n });
    expect(cpu.getReg(Reg.RAX)).toBe(3n);
  });

  it.each([
    ['went back there', false],
    ['ran guest code (a nested run, which sees the unmap first), then went back', true],
  ])('should fault on the page before when a gate hook unmapped it and %s', (_, nested) => {
    const B = CODE + 0x2000n;
    const GATE = 0xffffffff90000000n;
    const rel = (from: bigint, to: bigint) => [...new Uint8Array(new Int32Array([Number(to - from)]).buffer)];
    const { cpu, as } = setup([0xe9, ...rel(CODE + 5n, B), 0xf4]); // A: jmp B; (A+5) hlt
    as.map(B, 4096, P | W | U);
    as.write(B, Uint8Array.from([0xe9, ...rel(B + 5n, GATE), 0x90, 0xf4])); // B: jmp GATE; (B+5) nop; hlt
    as.map(GATE, 4096, P | PageFlags.Gate);
    cpu.rip = CODE + 5n;
    expect(cpu.run(100).reason).toBe('hlt'); // A's hlt is decoded and cached
    cpu.rip = CODE;
    cpu.gateHook = (c) => {
      as.unmap(CODE, 4096);
      if (nested) {
        c.rip = B + 5n;
        expect(c.run(100)).toEqual({ reason: 'hlt', rip: B + 7n });
      }
      c.rip = CODE + 5n;
      return true;
    };
    expect(cpu.run(100)).toMatchObject({ reason: 'exception', vector: 14, cr2: CODE + 5n });
  });

  it('should treat a byte marked as a gate as a gate, and run the rest of its page as code', () => {
    // nop; jmp +1 (to the gate at CODE+4); (CODE+3) hlt; (CODE+4) gate byte; (CODE+5) mov $7,%eax; hlt
    const { cpu, as } = setup([0x90, 0xeb, 0x01, 0xf4, 0xcc, 0xb8, 7, 0, 0, 0, 0xf4]);
    as.markGate(CODE + 4n, true);
    expect(as.isGate(CODE + 4n)).toBe(true);
    expect(as.isGate(CODE + 5n)).toBe(false);
    const gates: unknown[] = [];
    cpu.gateHook = (c, gate) => {
      gates.push(gate.gate);
      gate.gate ??= 'bound'; // the hook's cache, kept with the decoded gate
      c.rip = CODE + 5n;
      return true;
    };
    expect(cpu.run(100)).toEqual({ reason: 'hlt', rip: CODE + 11n });
    expect(cpu.getReg(Reg.RAX)).toBe(7n);
    expect([cpu.retired, cpu.virtualRetired]).toEqual([4, 4]); // nop, jmp, mov, hlt: the gate is none
    cpu.rip = CODE;
    cpu.run(100);
    expect(gates).toEqual([null, 'bound']);
    // Unmarked, the byte is code again (an int3), and the hook's cache went with the decoded gate.
    as.markGate(CODE + 4n, false);
    cpu.rip = CODE;
    expect(cpu.run(100)).toEqual({ reason: 'exception', vector: 3, rip: CODE + 5n });
    as.markGate(CODE + 4n, true);
    cpu.rip = CODE;
    cpu.run(100);
    expect(gates).toEqual([null, 'bound', null]);
  });

  it('should charge no virtual time for instrumentation bytes', () => {
    const { cpu, as } = setup([0x90, 0x90, 0xcc, 0x90, 0x0f, 0x31, 0xf4]); // nop; nop; int3; nop; rdtsc; hlt
    as.markInstrumentation(CODE + 1n, 2, true);
    expect(cpu.run(100)).toMatchObject({ vector: 3 });
    expect(cpu.run(100).reason).toBe('hlt');
    expect(cpu.retired).toBe(6);
    expect(cpu.virtualRetired).toBe(4);
    expect(cpu.getReg(Reg.RAX)).toBe(2n); // virtual instructions retired before the rdtsc
  });

  it('should charge no virtual time in instrumentation mode', () => {
    const { cpu } = setup([0x90, 0x90, 0x90, 0xf4]);
    cpu.step();
    cpu.instrumentationMode = true;
    cpu.step();
    cpu.instrumentationMode = false;
    cpu.run(10);
    expect([cpu.retired, cpu.virtualRetired]).toEqual([4, 3]);
  });

  it('should count the budget in virtual instructions and stop at the hard cap', () => {
    const { cpu, as } = setup([0xeb, 0xfe]);
    as.markInstrumentation(CODE, 2, true);
    expect(cpu.run(10, 50)).toEqual({ reason: 'budget', rip: CODE });
    expect(cpu.retired).toBe(50);
    expect(cpu.virtualRetired).toBe(0);
  });
});

describe('Cpu privilege', () => {
  it.each([
    ['cli', [0xfa]],
    ['hlt', [0xf4]],
    ['wrmsr', [0x0f, 0x30]],
    ['mov cr3, rax', [0x0f, 0x22, 0xd8]],
    ['swapgs', [0x0f, 0x01, 0xf8]],
    ['out 0x80, al', [0xe6, 0x80]],
    ['sysretq', [0x48, 0x0f, 0x07]],
  ])('should raise #GP(0) for %s at CPL3', (_, code) => {
    const { cpu } = setup(code, 3);
    expect(cpu.step()).toEqual({ reason: 'exception', vector: 13, errorCode: 0, rip: CODE });
  });

  it('should round-trip syscall and sysretq with FMASK applied', () => {
    const { cpu, as } = setup([0x0f, 0x05, 0x90], 3); // syscall; nop
    as.write(KERNEL, Uint8Array.of(0x0f, 0x01, 0xf8, 0x0f, 0x01, 0xf8, 0x48, 0x0f, 0x07)); // swapgs x2; sysretq
    cpu.writeMsr(Msr.LSTAR, KERNEL);
    cpu.writeMsr(Msr.STAR, (0x23n << 48n) | (0x10n << 32n));
    cpu.writeMsr(Msr.FMASK, 0x47700n);
    cpu.rflags = 0x302 | Rflags.CF;
    expect(cpu.step().reason).toBe('budget');
    expect([cpu.cpl, cpu.cs, cpu.ss, cpu.rip]).toEqual([0, 0x10, 0x18, KERNEL]);
    expect(cpu.getReg(Reg.RCX)).toBe(CODE + 2n);
    expect(cpu.getReg(Reg.R11)).toBe(0x303n);
    expect(cpu.rflags).toBe(0x3);
    cpu.run(3);
    expect([cpu.cpl, cpu.cs, cpu.ss, cpu.rip, cpu.rflags]).toEqual([3, 0x33, 0x2b, CODE + 2n, 0x303]);
    expect(cpu.step()).toEqual({ reason: 'exception', vector: 1, rip: CODE + 3n, singleStep: true });
  });

  it('should swap GS bases with swapgs', () => {
    const { cpu, as } = setup([0x0f, 0x01, 0xf8, 0x65, 0x48, 0x8b, 0x04, 0x25, 0x08, 0, 0, 0]); // swapgs; mov rax, gs:[8]
    as.writeU64(0x7f0008n, 0xabcn);
    cpu.gsBase = 0x1234n;
    cpu.kernelGsBase = 0x7f0000n;
    cpu.run(2);
    expect([cpu.gsBase, cpu.kernelGsBase, cpu.getReg(Reg.RAX)]).toEqual([0x7f0000n, 0x1234n, 0xabcn]);
  });

  it('should return to CPL3 with iretq', () => {
    const { cpu, as } = setup([0x48, 0xcf]);
    const frame = [0x400100n, 0x33n, 0x246n, 0x7f0800n, 0x2bn];
    for (const [k, v] of frame.entries()) as.writeU64(0x7f0f00n + BigInt(k * 8), v);
    cpu.setReg(Reg.RSP, 0x7f0f00n);
    expect(cpu.step().reason).toBe('budget');
    expect([cpu.rip, cpu.cs, cpu.cpl, cpu.rflags, cpu.getReg(Reg.RSP), cpu.ss]).toEqual([
      0x400100n,
      0x33,
      3,
      0x246,
      0x7f0800n,
      0x2b,
    ]);
  });

  it('should read and write MSRs, control registers and a deterministic TSC', () => {
    const { cpu } = setup([0x0f, 0x32, 0x0f, 0x20, 0xd8, 0x0f, 0x31]); // rdmsr; mov rax, cr3; rdtsc
    cpu.setReg(Reg.RCX, BigInt(Msr.LSTAR));
    cpu.writeMsr(Msr.LSTAR, 0xffffffff81234567n);
    cpu.cr3 = 0x5000n;
    cpu.step();
    expect([cpu.getReg(Reg.RAX), cpu.getReg(Reg.RDX)]).toEqual([0x81234567n, 0xffffffffn]);
    cpu.step();
    expect(cpu.getReg(Reg.RAX)).toBe(0x5000n);
    cpu.writeMsr(Msr.TSC, 1000n);
    cpu.step();
    expect(cpu.getReg(Reg.RAX)).toBe(1000n);
  });

  it('should call the I/O callback for in and out', () => {
    const out: number[] = [];
    const as = new AddressSpace();
    as.map(CODE, 4096, P);
    as.write(CODE, Uint8Array.of(0xe6, 0x80, 0xec)); // out 0x80, al; in al, dx
    const cpu = new Cpu({
      addressSpace: as,
      io: { in: (port) => port & 0xff, out: (port, _s, v) => out.push(port, v) },
    });
    cpu.rip = CODE;
    cpu.setReg(Reg.RAX, 0x1234n);
    cpu.setReg(Reg.RDX, 0x3f8n);
    cpu.run(2);
    expect(out).toEqual([0x80, 0x34]);
    expect(cpu.getReg(Reg.RAX)).toBe(0x12f8n);
  });
});

describe('Cpu traps$', () => {
  it('should emit a frozen event naming the bytes and mnemonic of a #UD', () => {
    const { cpu } = setup([0x0f, 0x28, 0x00]); // movaps xmm0, [rax]
    const events: TrapEvent[] = [];
    cpu.traps$.subscribe((e) => events.push(e));
    expect(cpu.step()).toEqual({ reason: 'exception', vector: 6, rip: CODE });
    expect(events).toEqual([
      {
        type: 'trap:raised',
        cpu: 0,
        vector: 6,
        name: '#UD',
        rip: CODE,
        bytes: '0f 28 00',
        mnemonic: 'movaps',
        retired: 0,
      },
    ]);
    expect(Object.isFrozen(events[0])).toBe(true);
  });

  it('should emit #PF with its error code and CR2', () => {
    const { cpu } = setup([0x48, 0x8b, 0x03]);
    cpu.setReg(Reg.RBX, 0x900000n);
    const events: TrapEvent[] = [];
    cpu.traps$.subscribe((e) => events.push(e));
    cpu.step();
    expect(events[0]).toMatchObject({ name: '#PF', vector: 14, errorCode: 0, cr2: 0x900000n });
  });

  it('should raise #UD for ud2', () => {
    const { cpu } = setup([0x0f, 0x0b]);
    expect(cpu.step()).toEqual({ reason: 'exception', vector: 6, rip: CODE });
  });
});

describe(Cpu.prototype.saveContext, () => {
  it('should round-trip the register file through restoreContext', () => {
    const { cpu, as } = setup([0x48, 0xff, 0xc0, 0xf4]); // inc rax; hlt
    for (let r = 0; r < 16; r++) cpu.setReg(r as 0, BigInt(r) * 0x1111111111111111n);
    cpu.fsBase = 0x1000n;
    cpu.writeMsr(Msr.STAR, 0x23n << 48n);
    const saved = cpu.saveContext();
    cpu.run(10);
    const other = new Cpu({ addressSpace: as, id: 1 });
    other.restoreContext(saved);
    expect(other.saveContext()).toEqual(saved);
    other.run(10);
    expect(other.saveContext()).toEqual(cpu.saveContext());
  });
});
