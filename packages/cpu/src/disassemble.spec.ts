import { describe, expect, it } from 'vitest';
import { disassemble } from './disassemble.js';

describe(disassemble, () => {
  it('should format instructions in AT&T syntax with addresses and bytes', () => {
    const out = disassemble(Uint8Array.of(0x48, 0x89, 0xe5, 0xcc, 0xe8, 0xf0, 0xff, 0xff, 0xff), 0xffffffff81000000n);
    expect(out).toEqual([
      { address: 0xffffffff81000000n, length: 3, bytes: '48 89 e5', text: 'mov %rsp,%rbp' },
      { address: 0xffffffff81000003n, length: 1, bytes: 'cc', text: 'int3' },
      { address: 0xffffffff81000004n, length: 5, bytes: 'e8 f0 ff ff ff', text: 'call 0xffffffff80fffff9' },
    ]);
  });

  it('should stop after count instructions', () => {
    expect(disassemble(Uint8Array.of(0x90, 0x90, 0x90), 0n, 2)).toHaveLength(2);
  });
});

describe('disassemble 64-bit immediates', () => {
  it('should print immediates that iced-x86 alone prints as $0', () => {
    const movabs = (v: bigint) => {
      const b = new Uint8Array(10);
      b[0] = 0x48;
      b[1] = 0xb8;
      new DataView(b.buffer).setBigUint64(2, v, true);
      return disassemble(b, 0x1000n)[0].text;
    };
    expect(movabs(0x8000000000000000n)).toBe('movabs $0x8000000000000000,%rax');
    expect(movabs(0x20000000000000n)).toBe('movabs $0x20000000000000,%rax');
    expect(movabs(0x1234n)).toBe('movabs $0x1234,%rax');
  });
});
