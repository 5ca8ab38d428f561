import { describe, expect, it } from 'vitest';
import * as api from './index.js';

describe('@int3/cpu exports', () => {
  it('should expose exactly the public API', () => {
    expect(Object.keys(api).sort()).toEqual([
      'AddressSpace',
      'Cpu',
      'DEFAULT_MAX_INSNS',
      'ElfError',
      'ElfErrorCode',
      'ExceptionVector',
      'MemoryError',
      'MemoryForm',
      'Msr',
      'Op',
      'OperandKind',
      'PAGE_SIZE',
      'PageFlags',
      'Reg',
      'Rflags',
      'SHF',
      'SHN',
      'SHT',
      'Selector',
      'SymbolTable',
      'UNDEFINED_FLAGS',
      'argumentBytes',
      'callGuestFunction',
      'compilerFromEnvironment',
      'disassemble',
      'hi32',
      'lo32',
      'loadElf',
      'pageArenaUsage',
      'pageKey',
      'parseElf',
      'sampleElfUrl',
      'sharedPageWrites',
      'startGuestCall',
      'toBig',
    ]);
  });
});
