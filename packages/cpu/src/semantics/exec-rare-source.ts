import { EXECUTORS } from './executors.js';
import { indent, numbered } from './numbered.js';

/** The lines that delimit exec-rare.ts's generated part. */
export const EXEC_RARE_BEGIN =
  '// @generated-begin: scripts/gen-dispatch.mjs writes execRare from the table in src/semantics/executors.ts';
export const EXEC_RARE_END = '// @generated-end';

/** execRare: one case group per executor EXECUTORS reaches through it, then CpuSystem.execFlags. */
export function execRareSource(): string {
  const out = [
    '/**',
    ' * The instructions the run loop does not dispatch inline: multiply/divide, double shifts, exchanges,',
    ' * bit scans and tests, string instructions, then flags and system instructions. Returns 1 for hlt,',
    ' * 2 for a software-interrupt trap, else 0.',
    ' * @see Intel SDM Vol. 2 (instruction set reference)',
    ' */',
    'export function execRare(c: CpuSystem, i: Insn): number {',
    '  switch (i.op) {',
  ];
  for (const e of EXECUTORS.filter((x) => x.rare)) {
    for (const op of e.ops) out.push(`    case #Op.${op}:`);
    out.push(`      ${e.exec}(c, i);`, '      return 0;');
  }
  out.push('    default:', '      return c.execFlags(i);', '  }', '}');
  return numbered(indent(out, ''));
}
