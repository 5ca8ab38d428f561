import { describe, expect, it } from 'vitest';
import { AddressSpace } from './address-space.js';
import { Cpu } from './cpu.js';
import { PageFlags } from './page-flags.js';
import { Reg } from './reg.js';

const P = PageFlags.Present;
const W = PageFlags.Writable;

function machine(): { cpu: Cpu; as: AddressSpace } {
  const as = new AddressSpace();
  as.map(0x400000n, 8192, P | W);
  as.map(0x7f0000n, 4096, P | W);
  as.write(0x400800n, Uint8Array.of(0xff, 0xd3, 0xf4)); // call rbx; hlt
  const cpu = new Cpu({ addressSpace: as });
  return { cpu, as };
}

/** Calls the function at `fn` from a `call rbx; hlt` stub and returns EAX. */
function call(cpu: Cpu, fn: bigint): bigint {
  cpu.rip = 0x400800n;
  cpu.setReg(Reg.RSP, 0x7f1000n);
  cpu.setReg(Reg.RBX, fn);
  expect(cpu.run(1000).reason).toBe('hlt');
  return cpu.getReg(Reg.RAX);
}

describe('decode cache invalidation', () => {
  it('should execute the new bytes after a host write patches a function', () => {
    const { cpu, as } = machine();
    as.write(0x400000n, Uint8Array.of(0xb8, 0x01, 0, 0, 0, 0xc3)); // mov eax, 1; ret
    expect(call(cpu, 0x400000n)).toBe(1n);
    as.writeU8(0x400001n, 2);
    expect(call(cpu, 0x400000n)).toBe(2n);
  });

  it('should execute the new bytes after a guest store modifies code already decoded', () => {
    const { cpu, as } = machine();
    // 0: mov eax, 1 / 5: mov byte [rip-11], 5 (the imm above) / c: cmp eax, 5 / f: jne 0 / 11: hlt
    as.write(
      0x400000n,
      Uint8Array.of(0xb8, 1, 0, 0, 0, 0xc6, 0x05, 0xf5, 0xff, 0xff, 0xff, 5, 0x83, 0xf8, 5, 0x75, 0xef, 0xf4),
    );
    cpu.rip = 0x400000n;
    expect(cpu.run(100)).toEqual({ reason: 'hlt', rip: 0x400012n });
    expect(cpu.retired).toBe(9);
  });

  it('should drop an instruction straddling two pages when either page is written', () => {
    const { cpu, as } = machine();
    as.write(0x400ffdn, Uint8Array.of(0xb8, 0x01, 0, 0, 0, 0xc3)); // mov eax, 1; ret across 0x401000
    expect(call(cpu, 0x400ffdn)).toBe(1n);
    as.writeU8(0x401000n, 0x01);
    expect(call(cpu, 0x400ffdn)).toBe(0x10001n);
    as.writeU8(0x400ffen, 0x02);
    expect(call(cpu, 0x400ffdn)).toBe(0x10002n);
  });

  it('should share decoded code between address spaces sharing the kernel half, per page object', () => {
    const kernel = new AddressSpace();
    kernel.map(0xffffffff81000000n, 4096, P | W);
    kernel.write(0xffffffff81000000n, Uint8Array.of(0xb8, 0x07, 0, 0, 0, 0xf4)); // mov eax, 7; hlt
    const user = new AddressSpace(kernel);
    const a = new Cpu({ addressSpace: kernel });
    const b = new Cpu({ addressSpace: user, id: 1 });
    a.rip = 0xffffffff81000000n;
    a.run(10);
    user.writeU8(0xffffffff81000001n, 9);
    b.rip = 0xffffffff81000000n;
    b.run(10);
    expect(b.getReg(Reg.RAX)).toBe(9n);
  });
});
