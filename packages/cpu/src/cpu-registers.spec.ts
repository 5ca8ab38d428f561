import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import { Cpu } from './cpu.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';

/** push rax; hlt at 0x400000, with a stack page below 0x500000. */
function cpuWithPush(): Cpu {
  const as = new AddressSpace();
  as.map(0x400000n, 4096, PageFlags.Present | PageFlags.Writable);
  as.map(0x4ff000n, 4096, PageFlags.Present | PageFlags.Writable);
  as.write(0x400000n, Uint8Array.of(0x50, 0xf4));
  const cpu = new Cpu({ addressSpace: as, jit: false });
  cpu.rip = 0x400000n;
  cpu.setReg(Reg.RSP, 0x500000n);
  return cpu;
}

describe('regWrites', () => {
  it('should move at every host write that changes a register, and at none that leaves it as it was', () => {
    const cpu = cpuWithPush();
    const at = cpu.regWrites;
    cpu.setRegHalves(Reg.RAX, 1, 2);
    expect(cpu.regWrites).toBe(at + 1);
    cpu.setRegHalves(Reg.RAX, 1, 2);
    cpu.setReg(Reg.RAX, 0x200000001n);
    expect(cpu.regWrites).toBe(at + 1);
    cpu.setReg(Reg.RAX, 0x200000002n);
    cpu.setRegHalves(Reg.RAX, 2, 3);
    expect(cpu.regWrites).toBe(at + 3);
    expect(cpu.getReg(Reg.RAX)).toBe(0x300000002n);
  });

  it('should move when a context is restored over other registers, and at every run or step', () => {
    const cpu = cpuWithPush();
    const saved = cpu.saveContext();
    cpu.setReg(Reg.RBX, 7n);
    let at = cpu.regWrites;
    cpu.restoreContext(saved);
    expect(cpu.regWrites).toBeGreaterThan(at);
    expect(cpu.getReg(Reg.RBX)).toBe(0n);
    // A run may change registers without a host write (an exception delivered pushes its frame).
    at = cpu.regWrites;
    cpu.step();
    expect(cpu.getReg(Reg.RSP)).toBe(0x4ffff8n);
    expect(cpu.regWrites).toBeGreaterThan(at);
    at = cpu.regWrites;
    expect(cpu.run(10).reason).toBe('hlt');
    expect(cpu.regWrites).toBeGreaterThan(at);
  });
});
