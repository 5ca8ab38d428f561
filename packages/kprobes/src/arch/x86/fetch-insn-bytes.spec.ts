import { describe, expect, it } from 'vitest';
import { fetchInsnBytes } from './fetch-insn-bytes.js';
import { h, TEXT, textAt } from './x86-test-bytes.fixture.js';

describe(fetchInsnBytes, () => {
  const read = textAt(TEXT, h('cc 89 e5 5d c3'));

  it('should substitute the bytes the recover callback knows', () => {
    const recover = (a: bigint) => (a === TEXT ? 0x48 : undefined);
    expect(Array.from(fetchInsnBytes(read, TEXT, recover))).toEqual([0x48, 0x89, 0xe5, 0x5d, 0xc3]);
  });

  it('should stop at the first unmapped byte', () => {
    expect(fetchInsnBytes(read, TEXT + 3n)).toHaveLength(2);
  });

  it('should read at most MAX_INSN_SIZE bytes', () => {
    expect(fetchInsnBytes(() => 0x90, TEXT)).toHaveLength(16);
  });
});
