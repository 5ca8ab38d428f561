/**
 * RFLAGS bits the CPU models. Bit 1 is reserved and always reads as 1.
 * @see Intel SDM Vol. 1 §3.4.3 (EFLAGS register)
 */
export const Rflags = {
  CF: 0x1,
  PF: 0x4,
  AF: 0x10,
  ZF: 0x40,
  SF: 0x80,
  TF: 0x100,
  IF: 0x200,
  DF: 0x400,
  OF: 0x800,
  RF: 0x10000,
  ID: 0x200000,
} as const;
