import { describe, expect, it } from 'vitest';
import { KPROBE_EVENTS_README } from './kprobe-events-readme.js';

describe('KPROBE_EVENTS_README', () => {
  it('should contain the feature strings the selftests grep for', () => {
    for (const s of [
      'r[maxactive]',
      '$arg<N>',
      'imm-value',
      'imm-string',
      ' <type>\\[<array-size>\\]',
      'Create/append/',
      '<symbol>[+<offset>]%return',
      'x8/16/32/64',
      'kernel return probes support:',
    ]) {
      expect(KPROBE_EVENTS_README).toContain(s);
    }
    const lines = KPROBE_EVENTS_README.split('\n');
    const at = lines.findIndex((l) => l.includes('fetcharg:'));
    expect(lines[at + 1]).toContain('$comm');
    const next = lines.slice(at, at + 10).join('\n');
    expect(next).toContain('ustring');
    expect(next).toContain('[u]<offset>');
    expect(KPROBE_EVENTS_README).not.toContain('<argname>');
  });
});
