import { Op } from '../op.js';
import { type AluStage, aluResult, imulResult, incDecResult, negResult, notResult } from './alu-semantics.js';
import { widen } from './extend-semantics.js';
import { indent, numbered } from './numbered.js';
import { cmovNotTaken, setccValue } from './reg-semantics.js';

/** The lines that delimit exec-alu.ts's generated part. */
export const EXEC_ALU_BEGIN =
  '// @generated-begin: scripts/gen-dispatch.mjs writes execAlu, execUnary, execAluReg, execExtend, execConditional, addAt, subAt and imulAt from src/semantics/exec-alu-source.ts';
export const EXEC_ALU_END = '// @generated-end';

const FORMAT = '// biome-ignore format: generated (the formatter would re-wrap what the generator writes)';

/** The executors' operands: `dl`/`dh`, `sl`/`sh`, the carry in `cin`, results into `rl`/`rh`. */
function stage(w: boolean | string, mask: string | null, cin: string): AluStage {
  return { w, mask, dl: 'dl', dh: 'dh', sl: 'sl', sh: 'sh', cin, rl: 'rl', rh: 'rh', t: 'l', decl: '' };
}

function body(lines: string[], pad = '  '): string[] {
  return lines.map((l) => pad + l);
}

/** `if (size === 8) { 64-bit form } else narrow form`, each from the known-width staging. */
function bySize(wide: string[], narrow: string[]): string[] {
  const tail = narrow.length === 1 ? [`} else ${narrow[0]}`] : ['} else {', ...body(narrow), '}'];
  return ['if (size === 8) {', ...body(wide), ...tail];
}

/**
 * The ALU switch over `op` (add/adc, sub/sbb/cmp, or, xor, and/test), setting `kind`; `stageOf` writes
 * a group's result: the 64-bit and narrow forms apart (execAlu, every size) or at one run-time width
 * (execAluReg).
 */
function aluSwitch(stageOf: (op: number) => string[]): string[] {
  const groups: { labels: (keyof typeof Op)[]; op: number; kind?: string }[] = [
    { labels: ['Adc', 'Add'], op: Op.Adc, kind: 'Add' },
    { labels: ['Sbb', 'Sub', 'Cmp'], op: Op.Sbb, kind: 'Sub' },
    { labels: ['Or'], op: Op.Or },
    { labels: ['Xor'], op: Op.Xor },
    // and, test
    { labels: [], op: Op.And },
  ];
  const out = ['switch (op) {'];
  for (const g of groups) {
    if (g.labels.length === 0) out.push('  default:');
    else for (const l of g.labels) out.push(`  case #Op.${l}:`);
    const lines = [...(g.kind === undefined ? [] : [`kind = #LazyOp.${g.kind};`]), ...stageOf(g.op)];
    if (g.labels.length !== 0) lines.push('break;');
    if (lines.some((x) => x.startsWith('const '))) out.push('    {', ...body(lines, '      '), '    }');
    else out.push(...body(lines, '    '));
  }
  out.push('}');
  return out;
}

/** The head both ALU executors share: the result locals, the lazy kind, the carry in. */
const ALU_LOCALS = [
  'let rl: number;',
  'let rh = 0;',
  'let kind: number = #LazyOp.Logic;',
  'const cin = op === #Op.Adc || op === #Op.Sbb ? c.getCF() : 0;',
];

function execAlu(): string[] {
  const form = (op: number): string[] => {
    if (op === Op.Or || op === Op.Xor || op === Op.And) return aluResult(op, stage('size === 8', null, 'cin'));
    return bySize(aluResult(op, stage(true, null, 'cin')), aluResult(op, stage(false, 'sizeMask(size)', 'cin')));
  };
  return [
    '/**',
    ' * add/or/adc/sbb/and/sub/xor/cmp/test in every operand form and size, with lazily computed flags.',
    ' * @see Intel SDM Vol. 2A (ADD, ADC, SUB, SBB, AND, OR, XOR, CMP, TEST)',
    ' */',
    FORMAT,
    'export function execAlu(c: CpuCore, i: Insn): void {',
    ...body([
      'const size = i.size;',
      'const op = i.op;',
      'const sl = c.readSrc(i);',
      'const sh = c.vh;',
      'const dl = c.readDst(i);',
      'const dh = c.vh;',
      ...ALU_LOCALS,
      ...aluSwitch(form),
      'if (op !== #Op.Cmp && op !== #Op.Test) c.writeDst(i, rl, rh);',
      'c.setLazy(kind, size, dl, dh, sl, sh, rl, rh, cin);',
      'c.ripLo = i.nl;',
      'c.ripHi = i.nh;',
    ]),
    '}',
  ];
}

function execUnary(): string[] {
  const incDec = (op: 'Inc' | 'Dec'): string[] => [
    `case #Op.${op}:`,
    '  {',
    ...body(
      [
        ...bySize(
          incDecResult(Op[op], { w: true, mask: null, dl: 'dl', dh: 'dh', rl: 'rl', rh: 'rh', decl: '' }),
          incDecResult(Op[op], { w: false, mask: 'mask', dl: 'dl', dh: 'dh', rl: 'rl', rh: 'rh', decl: '' }),
        ),
        'const cf = c.getCF();',
        'c.writeDst(i, rl, rh);',
        `c.setLazy(#LazyOp.${op}, size, dl, dh, 1, 0, rl, rh, cf);`,
        'break;',
      ],
      '    ',
    ),
    '  }',
  ];
  const not = notResult({ w: 'size === 8', mask: 'mask', dl: 'dl', dh: 'dh' });
  const neg = bySize(
    negResult({ w: true, mask: null, dl: 'dl', dh: 'dh', rl: 'rl', rh: 'rh', decl: '' }),
    negResult({ w: false, mask: 'mask', dl: 'dl', dh: 'dh', rl: 'rl', rh: 'rh', decl: '' }),
  );
  return [
    '/**',
    ' * inc/dec (CF preserved), not (no flags), neg (CF = operand != 0).',
    ' * @see Intel SDM Vol. 2A (INC, DEC, NOT, NEG)',
    ' */',
    FORMAT,
    'export function execUnary(c: CpuCore, i: Insn): void {',
    ...body([
      'const size = i.size;',
      'const dl = c.readDst(i);',
      'const dh = c.vh;',
      'const mask = sizeMask(size);',
      'let rl: number;',
      'let rh = 0;',
      'switch (i.op) {',
      ...body([
        ...incDec('Inc'),
        ...incDec('Dec'),
        'case #Op.Not:',
        `  c.writeDst(i, ${not.lo}, ${not.hi});`,
        '  break;',
        // neg
        'default:',
        ...body(neg),
        '  c.writeDst(i, rl, rh);',
        '  c.setLazy(#LazyOp.Sub, size, 0, 0, dl, dh, rl, rh, 0);',
      ]),
      '}',
      'c.ripLo = i.nl;',
      'c.ripHi = i.nh;',
    ]),
    '}',
  ];
}

function execAluReg(): string[] {
  return [
    '/**',
    ' * The common case of execAlu: a 32/64-bit register destination and a register, immediate or memory',
    ' * source.',
    ' * @see Intel SDM Vol. 2A (ADD, ADC, SUB, SBB, AND, OR, XOR, CMP, TEST)',
    ' */',
    FORMAT,
    'export function execAluReg(c: CpuCore, i: Insn): void {',
    ...body([
      'const d = i.dr;',
      'const op = i.i2;',
      'const R = c.R;',
      'const H = c.H;',
      'const dl = R[d];',
      'const w = i.size === 8;',
      'const dh = w ? H[d] : 0;',
      'let sl: number;',
      'let sh: number;',
      'if (i.sk === #OperandKind.Imm) {',
      '  sl = i.il;',
      '  sh = i.ih;',
      '} else if (i.sk === #OperandKind.Reg) {',
      '  sl = R[i.sr];',
      '  sh = w ? H[i.sr] : 0;',
      '} else {',
      '  sl = c.readSrc(i);',
      '  sh = c.vh;',
      '}',
      ...ALU_LOCALS,
      ...aluSwitch((op) => aluResult(op, stage('w', null, 'cin'))),
      'if (op !== #Op.Cmp && op !== #Op.Test) {',
      '  R[d] = rl;',
      '  H[d] = rh;',
      '}',
      'c.setLazy(kind, i.size, dl, dh, sl, sh, rl, rh, cin);',
      'c.ripLo = i.nl;',
      'c.ripHi = i.nh;',
    ]),
    '}',
  ];
}

function execExtend(): string[] {
  const sx = (size2: number) => {
    const x = widen(Op.Movsx, size2, 'v', 'c.vh');
    return [...x.lines, `h = ${x.hi};`];
  };
  const one = (lines: string[]) => (lines.length === 1 ? ` ${lines[0]}` : ` { ${lines.join(' ')} }`);
  return [
    '/**',
    ' * movzx/movsx/movsxd: widen the source to the destination size.',
    ' * @see Intel SDM Vol. 2B (MOVZX, MOVSX/MOVSXD)',
    ' */',
    FORMAT,
    'export function execExtend(c: CpuCore, i: Insn): void {',
    ...body([
      'let v = readSrc2(c, i);',
      'let h = 0;',
      'if (i.op === #Op.Movsx) {',
      `  if (i.size2 === 1)${one(sx(1))}`,
      `  else if (i.size2 === 2)${one(sx(2))}`,
      `  else${one(sx(4))}`,
      `} else if (i.size2 === 8) h = ${widen(Op.Movzx, 8, 'v', 'c.vh').hi};`,
      'c.setR(i.dr, i.size, v, h);',
      'c.ripLo = i.nl;',
      'c.ripHi = i.nh;',
    ]),
    '}',
  ];
}

function execConditional(): string[] {
  const regs = { lo: (r: number | string) => `c.R[${r}]`, hi: (r: number | string) => `c.H[${r}]` };
  return [
    '/**',
    ' * setcc and cmovcc (a 32-bit cmov zero-extends its destination even when the condition is false).',
    ' * @see Intel SDM Vol. 2B (SETcc) and Vol. 2A (CMOVcc)',
    ' */',
    FORMAT,
    'export function execConditional(c: CpuCore, i: Insn): void {',
    ...body([
      `if (i.op === #Op.Setcc) writeOperand(c, i, ${setccValue('c.cond(i.cc)')}, 0);`,
      'else {',
      '  const v = c.readSrc(i);',
      '  const h = c.vh;',
      '  if (c.cond(i.cc)) c.setR(i.dr, i.size, v, h);',
      `  else ${cmovNotTaken('i.size', 'i.dr', regs).join(' ')}`,
      '}',
      'c.ripLo = i.nl;',
      'c.ripHi = i.nh;',
    ]),
    '}',
  ];
}

/**
 * addAt, subAt and imulAt: an add, sub or truncated multiply of two operands the caller read (xadd,
 * cmpxchg's compare, cmps and scas, imul r, r/m[, imm]), the low half returned and the high half in
 * `c.vh`, from the same alu-semantics.ts as execAlu and the compiler.
 */
function arithAt(): string[] {
  const out: string[] = [];
  for (const [name, op, what] of [
    ['addAt', Op.Add, '`d + s`'],
    ['subAt', Op.Sub, '`d − s`'],
  ] as const) {
    out.push(
      `/** ${what} at \`size\` bytes: the result's low half; its high half goes to \`c.vh\` (0 below 8 bytes). */`,
      FORMAT,
      `export function ${name}(c: CpuCore, size: number, dl: number, dh: number, sl: number, sh: number): number {`,
      ...body([
        'let rl: number;',
        'let rh = 0;',
        ...bySize(aluResult(op, stage(true, null, '0')), aluResult(op, stage(false, 'sizeMask(size)', '0'))),
        'c.vh = rh;',
        'return rl;',
      ]),
      '}',
      '',
    );
  }
  const imul = (w: boolean) => imulResult({ w, al: 'al', ah: 'ah', bl: 'bl', bh: 'bh', rl: 'rl', rh: 'rh', decl: '' });
  out.push(
    "/** The low `size` bytes of `a * b` (imul's two- and three-operand forms): the low half returned, the high half in `c.vh`. */",
    FORMAT,
    'export function imulAt(c: CpuCore, size: number, al: number, ah: number, bl: number, bh: number): number {',
    ...body([
      'let rl: number;',
      'let rh: number;',
      ...bySize(imul(true), [...imul(false), 'if (size === 2) rl &= 0xffff;']),
      'c.vh = rh;',
      'return rl;',
    ]),
    '}',
    '',
  );
  return out;
}

/**
 * execAlu, execUnary, execAluReg, execExtend and execConditional, the interpreter's executors of the ALU ops in the forms its
 * dispatch does not run inline, of movzx/movsx and of setcc/cmovcc, with their results from
 * alu-semantics.ts, extend-semantics.ts and reg-semantics.ts (the compiler's and the dispatch's source too), as the text scripts/gen-dispatch.mjs writes into exec-alu.ts.
 */
export function execAluSource(): string {
  return numbered(
    indent(
      [
        ...execAlu(),
        '',
        ...execUnary(),
        '',
        ...execAluReg(),
        '',
        ...execExtend(),
        '',
        ...execConditional(),
        '',
        ...arithAt().slice(0, -1),
      ],
      '',
    ),
  );
}
