import type { DecodedInsn } from './decode-insn.js';

/**
 * Whether the instruction is an indirect jump: `ff /4` or `ff /5` (jmp near/far through a register
 * or memory: `(ModRM.reg & 6) == 4`) or `ea` (jmp far absolute). A function containing one cannot be
 * optimized: a jump table may land anywhere, inside the detoured region too.
 * @see arch/x86/kernel/kprobes/opt.c insn_is_indirect_jump() (__insn_is_indirect_jump())
 */
export function insnIsIndirectJump(insn: DecodedInsn): boolean {
  const op = insn.opcode[0];
  if (op === 0xea) return true;
  return op === 0xff && insn.modrm !== undefined && ((insn.modrm >> 3) & 6) === 4;
}
