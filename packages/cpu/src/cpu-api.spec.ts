import { describe, expect, it } from 'vitest';
import { AddressSpace, Cpu, PageFlags, Reg } from './index.js';

/** mov rax, 0x1122334455667788; add rax, rbx; hlt */
const CODE = [0x48, 0xb8, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x48, 0x01, 0xd8, 0xf4];

function cpuAt(code: readonly number[]): Cpu {
  const as = new AddressSpace();
  as.map(0x400000n, 4096, PageFlags.Present | PageFlags.Writable);
  as.write(0x400000n, Uint8Array.from(code));
  const cpu = new Cpu({ addressSpace: as });
  cpu.rip = 0x400000n;
  return cpu;
}

describe('the Cpu other packages see', () => {
  it('should run guest code and show its registers through the API alone', () => {
    const cpu = cpuAt(CODE);
    cpu.setReg(Reg.RBX, 0x10n);
    expect(cpu.run(100)).toEqual({ reason: 'hlt', rip: 0x40000en });
    expect(cpu.getReg(Reg.RAX)).toBe(0x1122334455667798n);
    expect([cpu.regLo(Reg.RAX), cpu.regHi(Reg.RAX)]).toEqual([0x55667798, 0x11223344]);
    expect(cpu.retired).toBe(3);
    const saved = cpu.saveContext();
    cpu.setRegHalves(Reg.RAX, 0, 0);
    cpu.restoreContext(saved);
    expect(cpu.getReg(Reg.RAX)).toBe(0x1122334455667798n);
  });

  it("should keep how the CPU holds its state out of the type (the build's test type-check fails if it leaks)", () => {
    const cpu = cpuAt(CODE);
    // The same object at run time: the facade is a type, so the hot paths pay nothing for it.
    // @ts-expect-error the register file's int32 halves are the CPU's own
    expect(cpu.R).toBeInstanceOf(Int32Array);
    // @ts-expect-error so are the lazy flags
    expect(typeof cpu.lop).toBe('number');
    // @ts-expect-error and the TLB
    expect(cpu.rTagLo).toBeInstanceOf(Int32Array);
    // @ts-expect-error and the counters the run loop keeps (`retired` reads them)
    cpu.retiredCount = 0;
    // @ts-expect-error and the fetch path
    expect(typeof cpu.fetch).toBe('function');
  });
});
