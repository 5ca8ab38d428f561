import { describe, expect, it } from 'vitest';
import { boostFits, boostJump } from './boost-jump.js';
import { decodeInsn } from './decode-insn.js';

describe(boostJump, () => {
  it('should build e9 rel32 after the copy, aimed at the next original instruction', () => {
    const slot = 0xffffffffa0000000n;
    const jump = boostJump(slot, 3, 0xffffffff81001003n);
    expect(jump?.at).toBe(slot + 3n);
    expect(decodeInsn(jump!.bytes, jump!.at).nearBranchTarget).toBe(0xffffffff81001003n);
    expect(jump!.bytes[0]).toBe(0xe9);
  });

  it('should refuse a target beyond ±2 GiB', () => {
    expect(boostJump(0xffffffffa0000000n, 3, 0xffff888000000000n)).toBeUndefined();
  });
});

describe(boostFits, () => {
  it('should allow copies of at most 10 bytes (len + 5 < MAX_INSN_SIZE)', () => {
    expect([1, 10, 11, 15].map(boostFits)).toEqual([true, true, false, false]);
  });
});
