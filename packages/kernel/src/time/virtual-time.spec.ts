import { describe, expect, it } from 'vitest';
import { formatTimestamp, TICK_NS } from './virtual-time.js';

describe(formatTimestamp, () => {
  it('should print seconds in five columns and microseconds in six', () => {
    expect(formatTimestamp(0)).toBe('    0.000000');
    expect(formatTimestamp(1_999)).toBe('    0.000001');
    expect(formatTimestamp(12_345_678_901_234)).toBe('12345.678901');
    expect(formatTimestamp(TICK_NS)).toBe('    0.001000');
  });
});
