import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@int3/kprobes exports', () => {
  it('should expose exactly the public API', () => {
    expect(Object.keys(api).sort()).toEqual([
      'Errno',
      'KPROBES_NOTIFIER_PRIORITY',
      'KRETPROBE_MAX_DATA_SIZE',
      'KprobeError',
      'KprobeFlag',
      'KprobeStatus',
      'Kprobes',
      'MAX_STACK_SIZE',
      'kprobeHashBucket',
      'kprobeListFlags',
    ]);
  });
});
