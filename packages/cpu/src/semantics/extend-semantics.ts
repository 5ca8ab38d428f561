import { Op } from '../op.js';

/** What cbw/cwde/cdqe or cwd/cdq/cqo write: register `reg` at `size` bytes, from `lo`/`hi` text. */
export interface AccExtend {
  readonly reg: number;
  readonly size: number;
  readonly lo: string;
  readonly hi: string;
}

/**
 * cbw/cwde/cdqe (Op.Cbw: the accumulator's lower half sign-extended into it) and cwd/cdq/cqo (Op.Cwd:
 * its sign into rDX), given RAX's halves as `l`/`h`. The one definition the interpreter's dispatch and
 * the compiler write their register updates from.
 * @see Intel SDM Vol. 2A (CBW/CWDE/CDQE, CWD/CDQ/CQO)
 */
export function accExtend(op: number, size: number, l: string, h: string): AccExtend {
  if (op === Op.Cbw) {
    if (size === 2) return { reg: 0, size, lo: `((${l} << 24) >> 24)`, hi: '0' };
    if (size === 4) return { reg: 0, size, lo: `((${l} << 16) >> 16)`, hi: '0' };
    return { reg: 0, size: 8, lo: l, hi: `(${l} >> 31)` };
  }
  if (size === 2) return { reg: 2, size, lo: `((${l} << 16) >> 31)`, hi: '0' };
  if (size === 4) return { reg: 2, size, lo: `(${l} >> 31)`, hi: '0' };
  return { reg: 2, size: 8, lo: `(${h} >> 31)`, hi: `(${h} >> 31)` };
}

/** A widened value: statements to run first, then its halves as expressions. */
export interface Widened {
  readonly lines: string[];
  readonly lo: string;
  readonly hi: string;
}

/**
 * movzx (Op.Movzx) or movsx/movsxd (Op.Movsx) of a `size2`-byte source held zero-extended in `v` (its
 * high half in `vh`, read at 8 bytes only): the value the destination gets, as 64-bit halves. A
 * sign extension rewrites `v` in place (`v` names a `let`).
 * @see Intel SDM Vol. 2B (MOVZX, MOVSX/MOVSXD)
 */
export function widen(op: number, size2: number, v: string, vh: string): Widened {
  if (op === Op.Movzx) return { lines: [], lo: v, hi: size2 === 8 ? vh : '0' };
  if (op !== Op.Movsx) throw new Error(`int3 semantics: op ${op} widens nothing`);
  const shift = size2 === 1 ? 24 : size2 === 2 ? 16 : 0;
  return { lines: shift === 0 ? [] : [`${v} = (${v} << ${shift}) >> ${shift};`], lo: v, hi: `(${v} >> 31)` };
}
