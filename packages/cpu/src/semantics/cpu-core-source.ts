import { MemoryForm } from '../insn.js';
import { eaResult, runTimeEa } from './ea-semantics.js';
import { indent, numbered } from './numbered.js';

/** The lines that delimit CpuCore's generated part (its effective address) in cpu-core.ts. */
export const CPU_CORE_BEGIN =
  '  // @generated-begin: scripts/gen-dispatch.mjs writes the effective address from src/semantics/cpu-core-source.ts';
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
  );
  return numbered(indent(out, '  '));
}
