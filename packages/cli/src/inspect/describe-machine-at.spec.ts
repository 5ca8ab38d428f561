import { describe, expect, it } from 'vitest';
import { summarizeEntry } from './describe-machine-at.js';

describe(summarizeEntry, () => {
  it('should print the type, then each field, bigints in hex', () => {
    expect(summarizeEntry({ type: 'trap:raised', cpu: 0, name: '#BP', rip: 0xffffffff81001c81n })).toBe(
      'trap:raised cpu=0 name="#BP" rip=0xffffffff81001c81',
    );
  });

  it('should cut a long field to 60 characters', () => {
    const line = summarizeEntry({ type: 'input:insmod', name: 'x.ko', data: 'A'.repeat(500) });
    expect(line).toBe(`input:insmod name="x.ko" data="${'A'.repeat(56)}...`);
  });
});
