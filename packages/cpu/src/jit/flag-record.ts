import { LazyOp } from '../lazy-flags.js';

/**
 * A flag-writing instruction as the compiler sees it: the lazy-flag kind (`LazyOp`) and size it
 * records, and the JS expressions (temporaries or literals) of the operands and result it would store
 * in CpuState's lazy fields. The flag formulas below are CpuState's getters (`getCF`, `getZF`, …)
 * written out for a known kind and size, so a read right after its writer costs no dispatch.
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

const { Add: ADD, Sub: SUB, Logic: LOGIC, Inc: INC, Dec: DEC, Imul: IMUL } = LazyOp;

/** Most significant bit of a `size`-byte value, as a 0/1 expression. */
export function msbExpr(lo: string, hi: string, size: number): string {
  switch (size) {
    case 8:
      return `(${hi} >>> 31)`;
    case 4:
      return `(${lo} >>> 31)`;
    case 2:
      return `((${lo} >>> 15) & 1)`;
    default:
      return `((${lo} >>> 7) & 1)`;
  }
}

/** CF as a 0/1 expression (CpuState.getCF for this kind). */
export function cfExpr(f: FlagRecord): string {
  const w = f.size === 8;
  switch (f.kind) {
    case ADD: {
      const low =
        f.cf === '0'
          ? `((${f.rl} >>> 0) < (${f.dl} >>> 0) ? 1 : 0)`
          : `((${f.cf} ? (${f.rl} >>> 0) <= (${f.dl} >>> 0) : (${f.rl} >>> 0) < (${f.dl} >>> 0)) ? 1 : 0)`;
      return w ? `(${f.rh} !== ${f.dh} ? ((${f.rh} >>> 0) < (${f.dh} >>> 0) ? 1 : 0) : ${low})` : low;
    }
    case SUB: {
      const low =
        f.cf === '0'
          ? `((${f.dl} >>> 0) < (${f.sl} >>> 0) ? 1 : 0)`
          : `((${f.cf} ? (${f.dl} >>> 0) <= (${f.sl} >>> 0) : (${f.dl} >>> 0) < (${f.sl} >>> 0)) ? 1 : 0)`;
      return w ? `(${f.dh} !== ${f.sh} ? ((${f.dh} >>> 0) < (${f.sh} >>> 0) ? 1 : 0) : ${low})` : low;
    }
    case LOGIC:
      return '0';
    case IMUL:
      return `IO(${f.size}, ${f.dl}, ${f.dh}, ${f.sl}, ${f.sh})`;
    default:
      return f.cf;
  }
}

/** ZF as a 0/1 expression. */
export function zfExpr(f: FlagRecord): string {
  return f.size === 8 ? `(${f.rl} === 0 && ${f.rh} === 0 ? 1 : 0)` : `(${f.rl} === 0 ? 1 : 0)`;
}

/** OF as a 0/1 expression (CpuState.getOF for this kind). */
export function ofExpr(f: FlagRecord): string {
  const w = f.size === 8;
  switch (f.kind) {
    case ADD:
    case INC:
      return w
        ? `(((${f.dh} ^ ${f.rh}) & (${f.sh} ^ ${f.rh})) >>> 31)`
        : msbExpr(`((${f.dl} ^ ${f.rl}) & (${f.sl} ^ ${f.rl}))`, '0', f.size);
    case SUB:
    case DEC:
      return w
        ? `(((${f.dh} ^ ${f.sh}) & (${f.dh} ^ ${f.rh})) >>> 31)`
        : msbExpr(`((${f.dl} ^ ${f.sl}) & (${f.dl} ^ ${f.rl}))`, '0', f.size);
    case LOGIC:
      return '0';
    case IMUL:
      return `IO(${f.size}, ${f.dl}, ${f.dh}, ${f.sl}, ${f.sh})`;
    default:
      return f.of;
  }
}

/** Whether a read of condition `cc` after this writer needs the CF the writer keeps (inc/dec). */
export function needsKeptCf(kind: number, cc: number): boolean {
  return (kind === INC || kind === DEC) && (cc >> 1 === 1 || cc >> 1 === 3);
}

/** Whether `kind` keeps the previous CF (inc/dec). */
export function keepsCf(kind: number): boolean {
  return kind === INC || kind === DEC;
}

function signedShift(size: number): number {
  return size === 2 ? 16 : size === 1 ? 24 : 0;
}

/**
 * Condition `cc` (Intel tttn) after the writer, as a boolean expression. A compare (sub without
 * borrow) gives the orders straight from its operands, as CpuState.cond's fast path does.
 */
export function condExpr(f: FlagRecord, cc: number): string {
  if (f.kind === SUB && f.cf === '0' && cc >= 2 && cc !== 8 && cc !== 9 && cc !== 10 && cc !== 11) {
    const w = f.size === 8;
    const { dl, dh, sl, sh } = f;
    const eq = w ? `(${dl} === ${sl} && ${dh} === ${sh})` : `(${dl} === ${sl})`;
    const ult = w
      ? `((${dh} >>> 0) < (${sh} >>> 0) || (${dh} === ${sh} && (${dl} >>> 0) < (${sl} >>> 0)))`
      : `((${dl} >>> 0) < (${sl} >>> 0))`;
    const k = signedShift(f.size);
    const slt = w
      ? `(${dh} < ${sh} || (${dh} === ${sh} && (${dl} >>> 0) < (${sl} >>> 0)))`
      : k === 0
        ? `(${dl} < ${sl})`
        : `((${dl} << ${k}) < (${sl} << ${k}))`;
    switch (cc) {
      case 2:
        return ult;
      case 3:
        return `!${ult}`;
      case 4:
        return eq;
      case 5:
        return `!${eq}`;
      case 6:
        return `(${ult} || ${eq})`;
      case 7:
        return `!(${ult} || ${eq})`;
      case 12:
        return slt;
      case 13:
        return `!${slt}`;
      case 14:
        return `(${slt} || ${eq})`;
      default:
        return `!(${slt} || ${eq})`;
    }
  }
  const sf = () => msbExpr(f.rl, f.rh, f.size);
  let x: string;
  switch (cc >> 1) {
    case 0:
      x = ofExpr(f);
      break;
    case 1:
      x = cfExpr(f);
      break;
    case 2:
      x = zfExpr(f);
      break;
    case 3:
      x = `(${cfExpr(f)} | ${zfExpr(f)})`;
      break;
    case 4:
      x = sf();
      break;
    case 5:
      x = `P[${f.rl} & 0xff]`;
      break;
    case 6:
      x = `(${sf()} ^ ${ofExpr(f)})`;
      break;
    default:
      x = `(${zfExpr(f)} | (${sf()} ^ ${ofExpr(f)}))`;
  }
  return cc & 1 ? `(${x} === 0)` : `(${x} !== 0)`;
}
