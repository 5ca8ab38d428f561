import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@int3/tracer-plugins exports', () => {
  it('should expose exactly the public API', () => {
    expect(Object.keys(api).sort()).toEqual([
      'DEBUGFS_KPROBES',
      'TRACEFS_ROOT',
      'TraceFs',
      'TraceFsErrno',
      'TraceFsError',
    ]);
  });
});
