export { AddressSpace, pageKey, sharedPageWrites } from './address-space.js';
export { argumentBytes, type CallArgument } from './call/call-argument.js';
export {
  type CallGuestFunctionOptions,
  callGuestFunction,
  DEFAULT_MAX_INSNS,
  type GuestCall,
  type GuestCallOutcome,
  type GuestCallRun,
  startGuestCall,
} from './call/call-guest-function.js';
export { type CpuOptions, compilerFromEnvironment } from './cpu.js';
export { type CompilerView, Cpu, type GateHook, type MemoryWatch, type PortIo, type TrapHook } from './cpu-api.js';
export type { CpuContext } from './cpu-context.js';
export { hi32, lo32, toBig } from './cpu-core.js';
export { disassemble } from './disassemble.js';
export { SHF, SHN, SHT } from './elf/elf-constants.js';
export { ElfError, ElfErrorCode } from './elf/elf-error.js';
export type {
  ElfFile,
  ElfRelocation,
  ElfRelocationSection,
  ElfSection,
  ElfSegment,
  ElfSymbol,
  ElfSymbolBind,
  ElfSymbolType,
} from './elf/elf-file.js';
export {
  type ElfLoadOptions,
  type ElfLoadResult,
  type ElfLoadTarget,
  type LoadedSegment,
  loadElf,
} from './elf/load-elf.js';
export { parseElf } from './elf/parse-elf.js';
export { type SymbolLocation, SymbolTable, type TableSymbol } from './elf/symbol-table.js';
export { ExceptionVector } from './exception-vector.js';
export { type Insn, MemoryForm, OperandKind } from './insn.js';
export type { BlockCompilerOptions } from './jit/block-compiler.js';
export type { JitStats } from './jit/jit-stats.js';
export { MemoryError } from './memory-error.js';
export { Msr } from './msr.js';
export { Op } from './op.js';
export type { CompiledCodeObserver, Page } from './page.js';
export { type PageArenaUsage, pageArenaUsage } from './page-arena.js';
export { PAGE_SIZE, PageFlags } from './page-flags.js';
export { Reg, type RegIndex } from './reg.js';
export { Rflags } from './rflags.js';
export type { RunResult } from './run-result.js';
export { sampleElfUrl } from './sample-elf.js';
export { Selector } from './selector.js';
export type { TrapEvent } from './trap-event.js';
export { UNDEFINED_FLAGS } from './undefined-flags.js';
