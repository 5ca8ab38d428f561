import { Reg, type RegIndex } from '@int3/cpu';

/**
 * The members of x86-64 `struct pt_regs`, in layout order: the callee-saved registers `r15`..`bx`,
 * the caller-saved `r11`..`di`, then `orig_ax` and the hardware frame `ip`, `cs`, `flags`, `sp`, `ss`.
 * These are also the names `%REG` accepts in a probe definition (no `r` prefix for the legacy eight).
 *
 * @see arch/x86/include/asm/ptrace.h struct pt_regs; arch/x86/kernel/ptrace.c regoffset_table
 */
export const PT_REGS_NAMES = Object.freeze([
  'r15',
  'r14',
  'r13',
  'r12',
  'bp',
  'bx',
  'r11',
  'r10',
  'r9',
  'r8',
  'ax',
  'cx',
  'dx',
  'si',
  'di',
  'orig_ax',
  'ip',
  'cs',
  'flags',
  'sp',
  'ss',
] as const);

/** One `struct pt_regs` member name. */
export type PtRegName = (typeof PT_REGS_NAMES)[number];

const NAMES: ReadonlySet<string> = new Set(PT_REGS_NAMES);

/** Whether `name` is a `struct pt_regs` member. @see regs_query_register_offset() */
export function isPtRegName(name: string): name is PtRegName {
  return NAMES.has(name);
}

/** `sizeof(struct pt_regs)` on x86-64. */
export const PT_REGS_SIZE = PT_REGS_NAMES.length * 8;

/** Byte offset of each member: `offsetof(struct pt_regs, name)`. */
export const PT_REGS_OFFSET: Readonly<Record<PtRegName, number>> = Object.freeze(
  Object.fromEntries(PT_REGS_NAMES.map((n, i) => [n, i * 8])) as Record<PtRegName, number>,
);

/** The CPU register behind each general-purpose `pt_regs` member (not orig_ax, ip, cs, flags, ss). */
export const PT_REGS_GPR: Readonly<Partial<Record<PtRegName, RegIndex>>> = Object.freeze({
  r15: Reg.R15,
  r14: Reg.R14,
  r13: Reg.R13,
  r12: Reg.R12,
  bp: Reg.RBP,
  bx: Reg.RBX,
  r11: Reg.R11,
  r10: Reg.R10,
  r9: Reg.R9,
  r8: Reg.R8,
  ax: Reg.RAX,
  cx: Reg.RCX,
  dx: Reg.RDX,
  si: Reg.RSI,
  di: Reg.RDI,
  sp: Reg.RSP,
});
