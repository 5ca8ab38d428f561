/**
 * Where the general-purpose registers are, as source text: register `r`'s low and high int32 halves
 * (the compiler: its locals `L3`/`H3`; CpuState: `this.R[r]`/`this.H[r]`). A register number is
 * known (a number: 0..15, or 16..19 for AH, CH, DH, BH) or the name of a run-time local.
 */
export interface RegStage {
  readonly lo: (r: number | string) => string;
  readonly hi: (r: number | string) => string;
}

/** Register `r` minus 16 (AH..BH are bits 8..15 of RAX..RBX), folded when known. */
function legacyHigh(r: number | string): number | string {
  return typeof r === 'number' ? r - 16 : `${r} - 16`;
}

/**
 * Register `r` read at `size` bytes, zero-extended: its halves as expressions.
 * @see Intel SDM Vol. 1 §3.4.1.1 (general-purpose registers in 64-bit mode)
 */
export function regRead(size: number, r: number | string, s: RegStage): { lo: string; hi: string } {
  switch (size) {
    case 8:
      return { lo: s.lo(r), hi: s.hi(r) };
    case 4:
      return { lo: s.lo(r), hi: '0' };
    case 2:
      return { lo: `(${s.lo(r)} & 0xffff)`, hi: '0' };
    default: {
      const low = `(${s.lo(r)} & 0xff)`;
      const high = `((${s.lo(legacyHigh(r))} >>> 8) & 0xff)`;
      if (typeof r === 'number') return { lo: r < 16 ? low : high, hi: '0' };
      return { lo: `(${r} < 16 ? ${low} : ${high})`, hi: '0' };
    }
  }
}

/**
 * Register `r` written at `size` bytes with the x86 width rules, as statements: a 64-bit write sets
 * both halves, a 32-bit write zeroes the upper half, a 16- or 8-bit write merges into the rest (AH..BH
 * into bits 8..15). `lo`/`hi` are read once each, before anything is written.
 * @see Intel SDM Vol. 1 §3.4.1.1 (general-purpose registers in 64-bit mode)
 */
export function regWrite(size: number, r: number | string, lo: string, hi: string, s: RegStage): string[] {
  switch (size) {
    case 8:
      return [`${s.lo(r)} = ${lo};`, `${s.hi(r)} = ${hi};`];
    case 4:
      return [`${s.lo(r)} = ${lo};`, `${s.hi(r)} = 0;`];
    case 2:
      return [`${s.lo(r)} = (${s.lo(r)} & ~0xffff) | (${lo} & 0xffff);`];
    default: {
      const q = legacyHigh(r);
      const low = lowByteWrite(r, lo, s);
      const high = `${s.lo(q)} = (${s.lo(q)} & ~0xff00) | ((${lo} & 0xff) << 8);`;
      if (typeof r === 'number') return [r < 16 ? low : high];
      return [`if (${r} < 16) ${low}`, `else ${high}`];
    }
  }
}

/** A write of register `r`'s low byte (`r` below 16: not AH..BH), merged into the rest. */
export function lowByteWrite(r: number | string, lo: string, s: RegStage): string {
  return `${s.lo(r)} = (${s.lo(r)} & ~0xff) | (${lo} & 0xff);`;
}

/**
 * What cmovcc writes when its condition is false: a 32-bit destination is still written (its upper
 * half zeroed), a 16/64-bit one is left alone. `size` is known or the name of a run-time local.
 * @see Intel SDM Vol. 2A (CMOVcc: "the destination is zero-extended … even if the condition is false")
 */
export function cmovNotTaken(size: number | string, r: number | string, s: RegStage): string[] {
  if (typeof size === 'number') return size === 4 ? [`${s.hi(r)} = 0;`] : [];
  return [`if (${size} === 4) ${s.hi(r)} = 0;`];
}

/** setcc's byte: 1 when the condition (a boolean expression) holds, else 0. @see Intel SDM Vol. 2B (SETcc) */
export function setccValue(cond: string): string {
  return `(${cond} ? 1 : 0)`;
}
