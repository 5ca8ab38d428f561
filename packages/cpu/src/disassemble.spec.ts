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
