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
