import { LazyOp } from '../lazy-flags.js';
import {
  cfOf,
  compareCondition,
  conditionBits,
  type FlagStage,
  isCompareCondition,
  ofOf,
  pfOf,
  sfOf,
  zfOf,
} from '../semantics/flag-semantics.js';

/**
 * A flag-writing instruction as the compiler sees it: the lazy-flag kind (`LazyOp`) and size it
 * records, and the JS expressions (temporaries or literals) of the operands and result it would store
 * in CpuState's lazy fields. Its flags are flag-semantics.ts' formulas for a known kind and size — the
 * ones CpuState's getters are generated from — so a read right after its writer costs no dispatch.
 * @see Intel SDM Vol. 1 Appendix B (EFLAGS condition codes)
 */
export interface FlagRecord {
  kind: number;
  size: number;
  dl: string;
  dh: string;
  sl: string;
  sh: string;
  rl: string;
  rh: string;
  /** Carry in (add/sub kinds), the kept CF (inc/dec), or the known CF (result kind). */
  cf: string;
  /** The known OF (result kind), else '0'. */
  of: string;
}

const { Sub: SUB, Inc: INC, Dec: DEC } = LazyOp;

/** Whether a read of condition `cc` after this writer needs the CF the writer keeps (inc/dec). */
export function needsKeptCf(kind: number, cc: number): boolean {
  return (kind === INC || kind === DEC) && (cc >> 1 === 1 || cc >> 1 === 3);
}

/** Whether `kind` keeps the previous CF (inc/dec). */
export function keepsCf(kind: number): boolean {
  return kind === INC || kind === DEC;
}

/** The writer as the flag formulas stage it: size known, the region's names for IO and P. */
function stage(f: FlagRecord): FlagStage {
  // Written out, not spread: this runs per flag read while compiling, and a spread of records of
  // varied shapes is a slow path in V8.
  return {
    size: f.size,
    dl: f.dl,
    dh: f.dh,
    sl: f.sl,
    sh: f.sh,
    rl: f.rl,
    rh: f.rh,
    cf: f.cf,
    of: f.of,
    imul: 'IO',
    parity: 'P',
    msb: 'msb',
  };
}

/**
 * Condition `cc` (Intel tttn) after the writer, as a boolean expression. A compare (sub without
 * borrow) gives the orders and equality straight from its operands.
 */
export function condExpr(f: FlagRecord, cc: number): string {
  if (f.kind === SUB && f.cf === '0' && isCompareCondition(cc)) return compareCondition(cc, f.size, f, '|');
  const s = stage(f);
  const x = conditionBits(cc >> 1, (flag) => {
    switch (flag) {
      case 'cf':
        return cfOf(f.kind, s);
      case 'zf':
        return zfOf(s);
      case 'sf':
        return sfOf(s);
      case 'of':
        return ofOf(f.kind, s);
      default:
        return pfOf(s);
    }
  });
  return cc & 1 ? `(${x} === 0)` : `(${x} !== 0)`;
}
