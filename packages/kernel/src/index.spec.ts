import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@int3/kernel exports', () => {
  it('should expose exactly the public API', () => {
    expect(Object.keys(api).sort()).toEqual([
      'ARG_MAX',
      'DEFAULT_MAX_SNAPSHOTS',
      'DEFAULT_SNAPSHOT_EVERY_NS',
      'DieVal',
      'Errno',
      'GuestCallError',
      'HOST_CALL_JUMPED',
      'HZ',
      'IMAGE_DIR',
      'Kallsyms',
      'KernelError',
      'KernelLayout',
      'LOG_MAGIC',
      'LOG_VERSION',
      'LogLevel',
      'Machine',
      'ModuleLoader',
      'ModuleState',
      'NS_PER_INSTRUCTION',
      'NotifyResult',
      'PT_REGS_GPR',
      'PT_REGS_OFFSET',
      'PT_REGS_SIZE',
      'PtRegs',
      'SAMPLE_IMAGE_PATH',
      'Session',
      'Signal',
      'TICK_NS',
      'WORKLOADS',
      'checkExecArgs',
      'decodeLog',
      'encodeLogLine',
      'errnoSubset',
      'formatTimestamp',
      'logHeaderLine',
      'readImageFile',
      'readSampleImage',
      'sampleProgram',
      'stateHash',
      'strerror',
    ]);
  });
});
