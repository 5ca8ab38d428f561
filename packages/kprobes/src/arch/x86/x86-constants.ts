/**
 * `BREAKPOINT_INSTRUCTION` (modern `INT3_INSN_OPCODE`): the byte an armed kprobe writes at its address.
 * @see arch/x86/include/asm/kprobes.h
 */
export const BREAKPOINT_INSTRUCTION = 0xcc;

/**
 * `RELATIVEJUMP_OPCODE` (modern `JMP32_INSN_OPCODE`): `jmp rel32`, used for boosting and optprobes.
 * @see arch/x86/include/asm/kprobes.h
 */
export const RELATIVEJUMP_OPCODE = 0xe9;

/**
 * `RELATIVEJUMP_SIZE` (modern `JMP32_INSN_SIZE`): length of `e9 rel32`.
 * @see arch/x86/include/asm/kprobes.h
 */
export const RELATIVEJUMP_SIZE = 5;

/**
 * `RELATIVECALL_OPCODE` (modern `CALL_INSN_OPCODE`): `call rel32`.
 * @see arch/x86/include/asm/kprobes.h
 */
export const RELATIVECALL_OPCODE = 0xe8;

/**
 * `RELATIVE_ADDR_SIZE` (modern `DISP32_SIZE`): size of a rel32/disp32 field; also the length of the
 * Jump Target Prohibition Region after the int3 byte of an optimized probe.
 * @see arch/x86/include/asm/kprobes.h
 */
export const RELATIVE_ADDR_SIZE = 4;

/**
 * `MAX_INSN_SIZE`: bytes in one instruction slot (the longest x86 instruction is 15 bytes).
 * @see arch/x86/include/asm/kprobes.h
 */
export const MAX_INSN_SIZE = 16;

/**
 * `MAX_OPTIMIZED_LENGTH`: the longest detoured code region (`MAX_INSN_SIZE + RELATIVE_ADDR_SIZE`).
 * @see arch/x86/include/asm/kprobes.h
 */
export const MAX_OPTIMIZED_LENGTH = MAX_INSN_SIZE + RELATIVE_ADDR_SIZE;

/**
 * `X86_EFLAGS_TF` (bit 8) and `X86_EFLAGS_IF` (bit 9) as bigints, the two flags kprobes saves.
 * @see Intel SDM Vol. 1 §3.4.3 (EFLAGS register)
 */
export const X86_EFLAGS_TF = 0x100n;

/** `X86_EFLAGS_IF`, the interrupt-enable flag. @see Intel SDM Vol. 1 §3.4.3 (EFLAGS register) */
export const X86_EFLAGS_IF = 0x200n;
