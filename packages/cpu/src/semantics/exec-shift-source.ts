import { indent, numbered } from './numbered.js';
import {
  SHIFT_SAR,
  SHIFT_SHL,
  SHIFT_SHR,
  shiftImm32Result,
  shiftImm64Result,
  shiftNarrowResult,
} from './shift-semantics.js';

/** The lines that delimit exec-shift.ts's generated part. */
export const EXEC_SHIFT_BEGIN =
  '// @generated-begin: scripts/gen-dispatch.mjs writes execShift from src/semantics/exec-shift-source.ts';
export const EXEC_SHIFT_END = '// @generated-end';

const FORMAT = '// biome-ignore format: generated (the formatter would re-wrap what the generator writes)';

function body(lines: readonly string[], pad: string): string[] {
  return lines.map((l) => pad + l);
}

/** One shift kind at every size: 64 and 32 bits from the forms the dispatch and compiler inline, 8/16 bits narrow. */
function kind(cc: number): string[] {
  const flags = { rl: 'rl', cf: 'cf', of: 'of', decl: '' };
  const narrow = { ...flags, size: 'size', l: 'l', mask: 'mask', sext: 'v' };
  const sext = cc === SHIFT_SAR ? ['const v = signExtend(l, size);'] : [];
  return [
    'if (size === 8) {',
    ...body(shiftImm64Result(cc, 'n', { ...flags, l: 'l', h: 'h', rh: 'rh' }), '  '),
    '} else if (size === 4) {',
    ...body(shiftImm32Result(cc, 'n', { ...flags, l: 'l' }), '  '),
    '} else {',
    ...body([...sext, ...shiftNarrowResult(cc, 'n', narrow)], '  '),
    '}',
  ];
}

/**
 * execShift, the interpreter's executor of every shift and rotate the dispatch does not run inline
 * (by CL, on memory, at 8/16 bits, rotates), its shl/shr/sar from shift-semantics.ts (the inline
 * forms' and the compiler's source too), as the text scripts/gen-dispatch.mjs writes into exec-shift.ts.
 */
export function execShiftSource(): string {
  const out = [
    '/**',
    ' * rol/ror/rcl/rcr/shl/shr/sar. A masked count of 0 changes nothing; OF uses the count-1 formula for',
    ' * every count (the SDM leaves it undefined otherwise), AF reads 0 (undefined).',
    ' * @see Intel SDM Vol. 2B (SAL/SAR/SHL/SHR, RCL/RCR/ROL/ROR)',
    ' */',
    FORMAT,
    'export function execShift(c: CpuCore, i: Insn): void {',
    '  const size = i.size;',
    '  const n = count(c, i);',
    '  const l = c.readDst(i);',
    '  const h = c.vh;',
    '  if (n !== 0) {',
    '    const mask = sizeMask(size);',
    '    let rl: number;',
    '    let rh = 0;',
    '    let cf: number;',
    '    let of: number;',
    '    switch (i.cc) {',
  ];
  for (const [cc, name] of [
    [SHIFT_SHL, 'shl'],
    [SHIFT_SHR, 'shr'],
    [SHIFT_SAR, 'sar'],
  ] as const) {
    out.push(`      case ${cc}: // ${name}`, ...body(kind(cc), '        '));
    out.push('        c.writeDst(i, rl, rh);', '        c.setResult(size, rl, rh, cf, of);', '        break;');
  }
  out.push(
    '      default:',
    '        rotate(c, i, l, h, n);',
    '    }',
    '  } else if (i.dk === #OperandKind.Reg && size === 4) c.H[i.dr] = 0;',
    '  c.ripLo = i.nl;',
    '  c.ripHi = i.nh;',
    '}',
  );
  return numbered(indent(out, ''));
}
