import { describe, expect, it } from 'vitest';
import { Errno, KprobeError } from './kprobe-error.js';

describe(KprobeError, () => {
  it('should carry the Linux errno number of its code', () => {
    const e = new KprobeError('EILSEQ', 'not on an instruction boundary');
    expect(e.errno).toBe(84);
    expect(e.message).toBe('EILSEQ: not on an instruction boundary');
    expect(Errno.EINVAL).toBe(22);
  });
});
