/**
 * Model-specific registers the CPU implements (rdmsr/wrmsr of any other index raises #GP(0)).
 * @see Intel SDM Vol. 4 Table 2-2 (IA-32 architectural MSRs)
 */
export const Msr = {
  EFER: 0xc0000080,
  STAR: 0xc0000081,
  LSTAR: 0xc0000082,
  FMASK: 0xc0000084,
  FS_BASE: 0xc0000100,
  GS_BASE: 0xc0000101,
  KERNEL_GS_BASE: 0xc0000102,
  TSC: 0x10,
} as const;
