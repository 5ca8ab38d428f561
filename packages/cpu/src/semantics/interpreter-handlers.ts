import { Op } from '../op.js';
import { IN_LOOP, SEQUENTIAL } from './handler-result.js';
import { dispatchSwitch } from './interpreter-dispatch.js';
import { indent } from './numbered.js';

/** The ops whose cases use the run loop's own locals (`continue`, `return`, its fetch cache). */
const LOOP_OPS = new Set<number>([Op.Gate, Op.DebugStop]);

/** One case of the dispatch: its labels (op numbers, or 'default'), the statements after them. */
interface CaseGroup {
  readonly labels: (number | 'default')[];
  readonly body: string[];
}

/** Indent of the dispatch switch's case labels (dispatchSwitch's text). */
const LABEL = /^ {2}(?:case (\d+) \/\* Op\.\w+ \*\/|(default)):$/;

function caseGroups(text: string): CaseGroup[] {
  const lines = text.split('\n');
  if (!lines[0].startsWith('switch (i.op) {') || lines[lines.length - 1] !== '}')
    throw new Error('int3 semantics: the dispatch is not one switch');
  const groups: CaseGroup[] = [];
  let current: CaseGroup | null = null;
  for (const line of lines.slice(1, -1)) {
    const m = LABEL.exec(line);
    if (m !== null) {
      if (current === null || current.body.length > 0) {
        current = { labels: [], body: [] };
        groups.push(current);
      }
      current.labels.push(m[2] === undefined ? Number(m[1]) : 'default');
    } else if (current === null) throw new Error(`int3 semantics: a dispatch line before its first case: ${line}`);
    else current.body.push(line);
  }
  return groups;
}

/** The op's name (`AluReg` for Op.AluReg); `Rare` for the default case. */
function opName(label: number | 'default'): string {
  if (label === 'default') return 'Rare';
  const name = (Object.keys(Op) as (keyof typeof Op)[]).find((n) => Op[n] === label);
  if (name === undefined) throw new Error(`int3 semantics: no op ${label}`);
  return name;
}

/** Before each handler: its statements are the switch's, which the formatter would re-wrap. */
const FORMAT_IGNORE = '  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)';

/** Whether a case body reaches outside its case (the loop's locals, its control flow). */
const LOOP_BOUND =
  /(?<![.\w])(continue|return|left|head|codeLo|prevLo|codeHi|prevHi|code|prev|insn|tf|jit|end|renewCap)\b/;

/**
 * The interpreter's dispatch as a table of functions, one per case of the switch (the same
 * statements: dispatchSwitch's, with `this` the `cpu` argument), for the run loop of a CPU with the
 * compiler. That loop interprets cold code, and a run's cold code keeps reaching case bodies the
 * switch had not run yet when V8 optimized the loop: each deoptimized the whole loop, which then ran
 * unoptimized until V8 had compiled it again (25-125 ms each, more than 10 times in one round of the
 * bench's corpus, on the compile thread the regions wait for too). A call through the table has
 * nothing there to deoptimize, and each case is its own small function, optimized on its own. The
 * interpreter alone keeps the switch, which is faster once optimized: no call per instruction.
 * Returns the static methods and the table (`Cpu.handlers`, indexed by op), as the class body's
 * source text between the markers. `dispatch`: the switch to split (dispatchSwitch's text).
 */
export function interpreterHandlers(dispatch: string = dispatchSwitch()): string {
  const out: string[] = [];
  const table: string[] = [];
  let fallback = '';
  for (const g of caseGroups(dispatch)) {
    if (g.labels.some((l) => l !== 'default' && LOOP_OPS.has(l))) {
      if (g.labels.some((l) => l === 'default' || !LOOP_OPS.has(l)))
        throw new Error('int3 semantics: a loop case shares its body with a handler');
      for (const l of g.labels) table.push(`    t[${l}] = Cpu.inLoop;`);
      continue;
    }
    const body = g.body.join('\n');
    const bound = LOOP_BOUND.exec(body.replace(/\/\/.*$/gm, ''));
    if (bound !== null) throw new Error(`int3 semantics: case ${g.labels.join(', ')} uses the loop's ${bound[1]}`);
    // `op` + its name: a static `call` would be the class's Function.prototype.call.
    const name = `op${opName(g.labels[0])}`;
    const ops = g.labels.map((l) => (l === 'default' ? 'every other op' : `Op.${opName(l)}`));
    const text = indent(
      g.body.map((l) => l.replace(/\bthis(?=[.,)])/g, 'cpu')),
      '    ',
    );
    const code = text.replace(/\/\/.*$/gm, '');
    const seq = /\bseq = false;/.test(code);
    const exit = /\bexit = /.test(code);
    const param = (p: string): string => (new RegExp(`\\b${p}\\b`).test(code) ? p : `_${p}`);
    out.push(
      `  /** The dispatch's case for ${ops.join(', ')}. */`,
      FORMAT_IGNORE,
      `  private static ${name}(${param('cpu')}: Cpu, ${param('i')}: Insn): number {`,
      ...(seq ? ['    let seq = true;'] : []),
      ...(exit ? ['    let exit = 0;'] : []),
      "    // The case's statements as in the switch: its `break`s leave this one.",
      '    switch (0) {',
      '      default:',
      text,
      '    }',
      `    return ${seq ? `seq ? ${SEQUENTIAL} : ${exit ? 'exit' : '0'}` : SEQUENTIAL};`,
      '  }',
    );
    // The loop looks at `exit` whatever `seq` is; the table says `exit` only off the sequential path,
    // so every exit must leave it at once.
    const statements = code
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    if (statements.some((l, k) => /\bexit = /.test(l) && statements[k + 1] !== 'seq = false;'))
      throw new Error(`int3 semantics: case ${g.labels.join(', ')} exits on its sequential path`);
    for (const l of g.labels) {
      if (l === 'default') fallback = name;
      else table.push(`    t[${l}] = Cpu.${name};`);
    }
  }
  if (fallback === '') throw new Error('int3 semantics: the dispatch has no default case');
  return [
    '  /** The entry of the ops the loop runs itself. */',
    '  private static inLoop(): number {',
    `    return ${IN_LOOP};`,
    '  }',
    ...out,
    '  /** The handlers by op (every op without a case of its own: the default). */',
    `  private static readonly handlers: readonly Handler[] = Cpu.handlerTable();`,
    '  private static handlerTable(): Handler[] {',
    // Packed (no holes for V8 to check at each call).
    `    const t = Array.from({ length: 256 }, (): Handler => Cpu.${fallback});`,
    ...table,
    '    return t;',
    '  }',
  ].join('\n');
}

/** The lines that delimit the generated handlers in cpu.ts. */
export const HANDLERS_BEGIN =
  '  // @generated-begin: scripts/gen-dispatch.mjs writes these handlers from src/semantics/interpreter-handlers.ts';
export const HANDLERS_END = '  // @generated-end (handlers)';
