/**
 * Exception vectors the CPU raises.
 * @see Intel SDM Vol. 3A §6.3.1 Table 6-1 (protected-mode exceptions and interrupts)
 */
export const ExceptionVector = {
  DivideError: 0,
  Debug: 1,
  Breakpoint: 3,
  InvalidOpcode: 6,
  GeneralProtection: 13,
  PageFault: 14,
} as const;

const names: Record<number, string> = { 0: '#DE', 1: '#DB', 3: '#BP', 6: '#UD', 13: '#GP', 14: '#PF' };

/** The SDM mnemonic of an exception vector (`'#PF'`), or `'INT n'` for a software interrupt. */
export function exceptionName(vector: number): string {
  return names[vector] ?? `INT ${vector}`;
}
