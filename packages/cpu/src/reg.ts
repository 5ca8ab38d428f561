/**
 * General-purpose register numbers in Intel encoding order (the ModRM.reg / REX.B numbering).
 * @see Intel SDM Vol. 2A §2.1.5 Table 2-2 (register encodings)
 */
export const Reg = {
  RAX: 0,
  RCX: 1,
  RDX: 2,
  RBX: 3,
  RSP: 4,
  RBP: 5,
  RSI: 6,
  RDI: 7,
  R8: 8,
  R9: 9,
  R10: 10,
  R11: 11,
  R12: 12,
  R13: 13,
  R14: 14,
  R15: 15,
} as const;

/** One of the sixteen general-purpose register numbers. @see Intel SDM Vol. 1 §3.4.1.1 */
export type RegIndex = (typeof Reg)[keyof typeof Reg];
