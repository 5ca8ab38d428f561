import { MemoryForm } from '../insn.js';
import { eaResult, runTimeEa } from './ea-semantics.js';
import { indent, numbered } from './numbered.js';
import type { RegStage } from './reg-semantics.js';
import { commitRsp, leaveRsp, poppedRsp, pushedRsp } from './stack-semantics.js';
import {
  loadHit,
  storeHit,
  storeNotify,
  storeTouchesCode,
  type TlbStage,
  tlbHit,
  tlbLocals,
  tlbPage,
  tlbSlot,
} from './tlb-semantics.js';

/** The lines that delimit CpuCore's generated part (its effective address, its TLB's fast paths) in cpu-core.ts. */
export const CPU_CORE_BEGIN =
  "  // @generated-begin: scripts/gen-dispatch.mjs writes the effective address and the data TLB's fast paths from src/semantics/cpu-core-source.ts";
export const CPU_CORE_END = '  // @generated-end';

const FORMAT = '// biome-ignore format: generated (the formatter would re-wrap what the generator writes)';

/**
 * The forms CpuCore.ea tests in turn, the commonest first (MemoryForm.General goes to eaGeneral), and
 * the operand's fields each reads into a local first.
 */
const FORMS: readonly { form: keyof typeof MemoryForm; locals: string[] }[] = [
  { form: 'Base', locals: ['const b = i.mb;'] },
  { form: 'BaseIndex', locals: ['const b = i.mb;', 'const n = i.mi;', 'const s = i.ms;'] },
  { form: 'Disp', locals: [] },
  { form: 'Index', locals: ['const n = i.mi;', 'const s = i.ms;'] },
];

/**
 * CpuCore.ea and eaGeneral, from ea-semantics.ts (the definition the compiler writes its addresses
 * from), as the source text scripts/gen-dispatch.mjs writes into cpu-core.ts.
 */
export function cpuCoreSource(): string {
  const stage = runTimeEa('this.', 'x', { base: 'b', index: 'n', scale: 's' });
  const out = [
    '/**',
    ' * Effective address of the memory operand; the high half goes to `eah`. Sums are exact in doubles',
    ' * (below 2^36), so each form is one add chain truncated once.',
    ' * @see Intel SDM Vol. 1 §3.7.5',
    ' */',
    FORMAT,
    'ea(i: Insn): number {',
    '  const mf = i.mf;',
  ];
  for (const { form, locals } of FORMS) {
    const x = eaResult(MemoryForm[form], stage);
    out.push(`  if (mf === #MemoryForm.${form}) {`, ...[...locals, ...x.lines].map((l) => `    ${l}`));
    out.push(`    this.eah = ${x.hi};`, `    return ${x.lo};`, '  }');
  }
  const g = eaResult(MemoryForm.General, runTimeEa('this.', 'x'));
  out.push(
    '  return this.eaGeneral(i);',
    '}',
    '',
    '/** Effective address with a 32-bit address size or an FS/GS base. */',
    FORMAT,
    'private eaGeneral(i: Insn): number {',
    ...g.lines.map((l) => `  ${l}`),
    `  this.eah = ${g.hi};`,
    `  return ${g.lo};`,
    '}',
    ...tlbMethods(),
  );
  return numbered(indent(out, '  '));
}

/** The lines that delimit CpuCore's generated stack-pointer part in cpu-core.ts. */
export const CPU_CORE_STACK_BEGIN =
  '  // @generated-begin: scripts/gen-dispatch.mjs writes push and the stack pointer from src/semantics/cpu-core-source.ts';
export const CPU_CORE_STACK_END = '  // @generated-end (stack)';

/** The registers through CpuState. */
const THIS_REGS: RegStage = { lo: (r) => `this.R[${r}]`, hi: (r) => `this.H[${r}]` };

/**
 * CpuCore's push, push64, popCommit and leaveRsp, from stack-semantics.ts (what the compiler writes
 * for push, pop, call, ret and leave), as the source text scripts/gen-dispatch.mjs writes into
 * cpu-core.ts.
 */
export function cpuCoreStackSource(): string {
  const push = (n: number | string, store: string) => [
    ...pushedRsp(n, THIS_REGS, 'l', 'h', 'const '),
    store,
    ...commitRsp(THIS_REGS, 'l', 'h'),
  ];
  const out = [
    '/** Pushes `size` bytes; RSP moves only once the store succeeded. */',
    FORMAT,
    'push(size: number, lo: number, hi: number): void {',
    ...push('size', 'this.store(l, h, size, lo, hi);').map((l) => `  ${l}`),
    '}',
    '',
    '/** push of 64 bits (call, push r64): RSP moves only once the store succeeded. */',
    FORMAT,
    'push64(lo: number, hi: number): void {',
    ...push(8, 'this.wr64(l, h, lo, hi);').map((l) => `  ${l}`),
    '}',
    '',
    '/** RSP += `size`: a pop, once what it popped has been read (see peek). */',
    FORMAT,
    'popCommit(size: number): void {',
    ...poppedRsp('size', THIS_REGS, 'l').map((l) => `  ${l}`),
    '}',
    '',
    "/** leave's RSP = RBP + `size` (the operand size it then pops into RBP or BP). */",
    FORMAT,
    'leaveRsp(size: number): void {',
    ...leaveRsp('size', THIS_REGS, 'x').map((l) => `  ${l}`),
    '}',
  ];
  return indent(out, '  ');
}

/** CpuCore.dataSlot, rd8…rd64 and wr8…wr64: the TLB hit inline (tlb-semantics.ts), else the slow path. */
function tlbMethods(): string[] {
  const read: TlbStage = {
    tagLo: 'this.rTagLo',
    tagHi: 'this.rTagHi',
    pages: 'this.rPage',
    lo: 'lo',
    hi: 'hi',
    slot: 'i',
    off: 'off',
  };
  const write: TlbStage = { ...read, tagLo: 'this.wTagLo', tagHi: 'this.wTagHi', pages: 'this.wPage' };
  const out = [
    '',
    "/** The data TLB's slot of the page at `lo`:`hi`. */",
    'dataSlot(lo: number, hi: number): number {',
    `  return ${tlbSlot('lo', 'hi')};`,
    '}',
  ];
  for (const size of [1, 2, 4, 8]) {
    const x = loadHit(size, tlbPage(read), 'off', 'v');
    out.push(
      '',
      ...(size === 8 ? ['/** Reads 64 bits; returns the low half, the high half goes to `vh`. */'] : []),
      FORMAT,
      `rd${size * 8}(lo: number, hi: number): number {`,
      `  ${tlbLocals(read, 'const ')}`,
      `  if (${tlbHit(size, read)}) {`,
      ...x.lines.map((l) => `    ${l}`),
      ...(size === 8 ? [`    this.vh = ${x.hi};`] : []),
      `    return ${x.lo};`,
      '  }',
      `  return this.rdSlow(lo, hi, ${size});`,
      '}',
    );
  }
  for (const size of [1, 2, 4, 8]) {
    const args = size === 8 ? 'vl: number, vh: number' : 'v: number';
    const vl = size === 8 ? 'vl' : 'v';
    out.push(
      '',
      FORMAT,
      `wr${size * 8}(lo: number, hi: number, ${args}): void {`,
      `  ${tlbLocals(write, 'const ')}`,
      `  if (${tlbHit(size, write)}) {`,
      `    const p = ${tlbPage(write)};`,
      ...storeHit(size, 'p', 'off', vl, 'vh').map((l) => `    ${l}`),
      `    if (${storeTouchesCode('p')}) ${storeNotify(size, 'p', 'off')}`,
      '    return;',
      '  }',
      `  this.wrSlow(lo, hi, ${size}, ${vl}, ${size === 8 ? 'vh' : '0'});`,
      '}',
    );
  }
  return out;
}
