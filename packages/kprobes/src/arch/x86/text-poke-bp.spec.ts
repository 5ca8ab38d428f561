import { describe, expect, it } from 'vitest';
import { relativeJump, textPokeBpSteps, unoptimizeSteps } from './text-poke-bp.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe(textPokeBpSteps, () => {
  it('should write int3, then the tail, then the first byte', () => {
    const steps = textPokeBpSteps(0x1000n, Uint8Array.of(0xe9, 1, 2, 3, 4));
    expect(steps.map((s) => [s.step, s.at, hex(s.bytes)])).toEqual([
      [1, 0x1000n, 'cc'],
      [2, 0x1001n, '01020304'],
      [3, 0x1000n, 'e9'],
    ]);
  });
});

describe(unoptimizeSteps, () => {
  it('should put int3 back over the jump, then the original tail', () => {
    const steps = unoptimizeSteps(0x1000n, Uint8Array.of(0x89, 0xe5, 0x41, 0x54));
    expect(steps.map((s) => [s.step, s.at, hex(s.bytes)])).toEqual([
      [1, 0x1000n, 'cc'],
      [2, 0x1001n, '89e54154'],
    ]);
  });
});

describe(relativeJump, () => {
  it('should encode the displacement from the end of the jump', () => {
    expect(hex(relativeJump(0x1000n, 0x2000n)!)).toBe('e9fb0f0000');
    expect(hex(relativeJump(0x2000n, 0x1000n)!)).toBe('e9fbefffff');
  });

  it('should refuse a target out of rel32 reach', () => {
    expect(relativeJump(0n, 1n << 32n)).toBeUndefined();
  });
});
