import {
  CPU_CORE_BEGIN,
  CPU_CORE_END,
  CPU_CORE_STACK_BEGIN,
  CPU_CORE_STACK_END,
  cpuCoreSource,
  cpuCoreStackSource,
} from './cpu-core-source.js';
import { CPU_STATE_BEGIN, CPU_STATE_END, cpuStateSource } from './cpu-state-source.js';
import { EXEC_ALU_BEGIN, EXEC_ALU_END, execAluSource } from './exec-alu-source.js';
import { EXEC_RARE_BEGIN, EXEC_RARE_END, execRareSource } from './exec-rare-source.js';
import { EXEC_SHIFT_BEGIN, EXEC_SHIFT_END, execShiftSource } from './exec-shift-source.js';
import { DISPATCH_BEGIN, DISPATCH_END, interpreterDispatch } from './interpreter-dispatch.js';
import { HANDLERS_BEGIN, HANDLERS_END, interpreterHandlers } from './interpreter-handlers.js';

/** A part of a checked-in source file that a generator writes, between two marker lines. */
export interface GeneratedPart {
  /** The file, relative to src/. */
  readonly file: string;
  readonly begin: string;
  readonly end: string;
  /** What goes between the markers (without the final newline). */
  readonly text: () => string;
}

/**
 * Every generated part of the cpu package's sources: scripts/gen-dispatch.mjs writes them, and
 * generated-parts.spec.ts fails while a file differs from its generator.
 */
export const GENERATED_PARTS: readonly GeneratedPart[] = [
  { file: 'cpu.ts', begin: DISPATCH_BEGIN, end: DISPATCH_END, text: interpreterDispatch },
  { file: 'cpu.ts', begin: HANDLERS_BEGIN, end: HANDLERS_END, text: interpreterHandlers },
  { file: 'cpu-state.ts', begin: CPU_STATE_BEGIN, end: CPU_STATE_END, text: cpuStateSource },
  { file: 'cpu-core.ts', begin: CPU_CORE_BEGIN, end: CPU_CORE_END, text: cpuCoreSource },
  { file: 'cpu-core.ts', begin: CPU_CORE_STACK_BEGIN, end: CPU_CORE_STACK_END, text: cpuCoreStackSource },
  { file: 'exec-alu.ts', begin: EXEC_ALU_BEGIN, end: EXEC_ALU_END, text: execAluSource },
  { file: 'exec-shift.ts', begin: EXEC_SHIFT_BEGIN, end: EXEC_SHIFT_END, text: execShiftSource },
  { file: 'exec-rare.ts', begin: EXEC_RARE_BEGIN, end: EXEC_RARE_END, text: execRareSource },
];

/** `source` (the text of `part.file`) with its generated part replaced by what the generator gives now. */
export function splicePart(source: string, part: GeneratedPart): string {
  const b = source.indexOf(`${part.begin}\n`);
  const e = source.indexOf(`${part.end}\n`, b);
  if (b < 0 || e < b) throw new Error(`int3 semantics: ${part.file} has no generated-part markers`);
  return `${source.slice(0, b + part.begin.length + 1)}${part.text()}\n${source.slice(e)}`;
}

/** The generated part of `source` (between the markers), for checks that look inside or outside it. */
export function partBounds(source: string, part: GeneratedPart): { begin: number; end: number } {
  const begin = source.indexOf(`${part.begin}\n`);
  const end = source.indexOf(`${part.end}\n`, begin);
  if (begin < 0 || end < begin) throw new Error(`int3 semantics: ${part.file} has no generated-part markers`);
  return { begin, end };
}
