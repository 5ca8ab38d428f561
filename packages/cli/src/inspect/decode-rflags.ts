import { Rflags } from '@int3/cpu';

/** The flags in gdb's order and spelling. */
const NAMES: readonly (readonly [string, number])[] = [
  ['CF', Rflags.CF],
  ['PF', Rflags.PF],
  ['AF', Rflags.AF],
  ['ZF', Rflags.ZF],
  ['SF', Rflags.SF],
  ['TF', Rflags.TF],
  ['IF', Rflags.IF],
  ['DF', Rflags.DF],
  ['OF', Rflags.OF],
  ['RF', Rflags.RF],
  ['ID', Rflags.ID],
];

/**
 * RFLAGS as gdb prints `eflags`: `0x246 [ PF ZF IF ]`, with `IOPL=n` when the I/O privilege level is
 * not 0.
 *
 * @see Intel SDM Vol. 1 §3.4.3 (EFLAGS register)
 * @example
 * decodeRflags(0x246); // '0x246 [ PF ZF IF ]'
 */
export function decodeRflags(rflags: number): string {
  const set = NAMES.filter(([, bit]) => (rflags & bit) !== 0).map(([name]) => name);
  const iopl = (rflags >> 12) & 3;
  if (iopl !== 0) set.push(`IOPL=${iopl}`);
  return `0x${rflags.toString(16)} [ ${set.join(' ')}${set.length > 0 ? ' ' : ''}]`;
}
