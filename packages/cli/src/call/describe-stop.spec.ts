import { AddressSpace, PageFlags, SymbolTable, type TrapEvent } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { describeStop } from './describe-stop.js';

const F = 0xffffffff81000100n;
const symbols = new SymbolTable([{ name: 'h_sort', address: F, size: 0x80, type: 'func', bind: 'global' }]);

function space(code: number[]): AddressSpace {
  const s = new AddressSpace();
  s.map(0xffffffff81000000n, 0x1000, PageFlags.Present);
  s.write(F + 0x23n, Uint8Array.from(code));
  return s;
}

describe(describeStop, () => {
  it('should describe a #PF with the symbol, cr2, error code and instruction', () => {
    const line = describeStop(
      { reason: 'exception', vector: 14, errorCode: 2, cr2: 0n, rip: F + 0x23n },
      [],
      symbols,
      space([0x48, 0x89, 0x07]),
      1e9,
    );
    expect(line).toBe(
      'guest fault: #PF at rip=0xffffffff81000123 (h_sort+0x23/0x80) cr2=0x0 error=0x2 insn="mov %rax,(%rdi)"',
    );
  });

  it("should name a #UD's bytes and mnemonic from the trap event", () => {
    const event: TrapEvent = {
      type: 'trap:raised',
      cpu: 0,
      vector: 6,
      name: '#UD',
      rip: F + 0x23n,
      bytes: '0f0b',
      mnemonic: 'ud2',
      retired: 3,
    };
    const line = describeStop({ reason: 'exception', vector: 6, rip: F + 0x23n }, [event], symbols, space([]), 1e9);
    expect(line).toBe('guest fault: #UD at rip=0xffffffff81000123 (h_sort+0x23/0x80) bytes=0f 0b mnemonic=ud2');
  });

  it('should fall back to decoding the bytes of a #UD without an event', () => {
    const line = describeStop(
      { reason: 'exception', vector: 6, rip: F + 0x23n },
      [],
      symbols,
      space([0x0f, 0x0b]),
      1e9,
    );
    expect(line).toMatch(/bytes=0f 0b mnemonic=ud2$/);
  });

  it('should leave out the symbol when none contains rip, and say when the budget ran out', () => {
    expect(
      describeStop({ reason: 'exception', vector: 13, errorCode: 0, rip: 0x1000n }, [], symbols, new AddressSpace(), 1),
    ).toBe('guest fault: #GP at rip=0x1000 error=0x0');
    expect(describeStop({ reason: 'budget', rip: F }, [], symbols, new AddressSpace(), 500)).toBe(
      'stopped: --max-insns 500 exhausted at rip=0xffffffff81000100 (h_sort+0x0/0x80) (raise --max-insns if the function is slow)',
    );
  });
});
