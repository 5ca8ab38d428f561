/**
 * The register names `%REG` accepts on x86-64: pt_regs fields, with no `r` prefix for the legacy
 * eight (`%ax`, not `%rax`). Matching is case-sensitive.
 *
 * @see arch/x86/kernel/ptrace.c regoffset_table
 */
export const X86_64_PT_REGS_NAMES: readonly string[] = Object.freeze([
  'r15',
  'r14',
  'r13',
  'r12',
  'r11',
  'r10',
  'r9',
  'r8',
  'bx',
  'cx',
  'dx',
  'si',
  'di',
  'bp',
  'ax',
  'orig_ax',
  'ip',
  'cs',
  'flags',
  'sp',
  'ss',
]);

const NAMES = new Set(X86_64_PT_REGS_NAMES);

/** Whether `name` is a pt_regs register name. @see regs_query_register_offset() */
export function isPtRegsName(name: string): boolean {
  return NAMES.has(name);
}

/** The x86-64 calling convention's argument registers, `$arg1`..`$arg6`. @see regs_get_kernel_argument() */
export const X86_64_ARG_REGS: readonly string[] = Object.freeze(['di', 'si', 'dx', 'cx', 'r8', 'r9']);
