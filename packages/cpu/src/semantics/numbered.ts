import { MemoryForm, OperandKind } from '../insn.js';
import { LazyOp } from '../lazy-flags.js';
import { Op } from '../op.js';

const TABLES: Readonly<Record<string, Readonly<Record<string, number>>>> = { Op, LazyOp, MemoryForm, OperandKind };

/**
 * `#Op.AluReg` → `91 /* Op.AluReg *\/` in generated source: a literal V8 builds a jump table from (a
 * `case Op.AluReg` would be a property load per case), and the name it stands for.
 */
export function numbered(text: string): string {
  return text.replace(/#(Op|LazyOp|MemoryForm|OperandKind)\.(\w+)/g, (_, table: string, name: string) => {
    const v = TABLES[table][name];
    if (v === undefined) throw new Error(`int3 semantics: no ${table}.${name}`);
    return `${v} /* ${table}.${name} */`;
  });
}

/** The name of a lazy-flag kind, for `#LazyOp.…`. */
export function lazyName(kind: number): keyof typeof LazyOp {
  const name = (Object.keys(LazyOp) as (keyof typeof LazyOp)[]).find((n) => LazyOp[n] === kind);
  if (name === undefined) throw new Error(`int3 semantics: no lazy op ${kind}`);
  return name;
}

/** `lines` each indented by `pad`, one a line. */
export function indent(lines: readonly string[], pad: string): string {
  return lines.map((l) => (l === '' ? '' : pad + l)).join('\n');
}
