import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@int3/cli exports', () => {
  it('should expose exactly the public API', () => {
    expect(Object.keys(api).sort()).toEqual([
      'INTERRUPTIBLE_COMMANDS',
      'Interrupt',
      'TracefsShell',
      'VERSION',
      'countInterruptions',
      'createProgram',
      'createTracedSession',
      'formatDisassembly',
      'hitSteps',
      'replayTrace',
    ]);
  });
});
