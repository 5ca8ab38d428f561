import type { DecodedInsn } from './decode-insn.js';

/**
 * Whether a relative branch targets `[start, start + len]` — both ends included, as the kernel
 * tests `start <= target && target <= start + len`. The kernel considers `loopne loope loop jrcxz`
 * (`e0`–`e3`), `jmp rel32/rel8` (`e9 eb`), `jcc rel8` (`70`–`7f`) and `jcc rel32` (`0f 80`–`8f`);
 * with `includeCalls` a `call rel32` (`e8`) counts too, which the optprobes documentation states
 * ("JTPR must not be targeted by any jump or call instruction") though opt.c's switch leaves it out.
 * @see arch/x86/kernel/kprobes/opt.c insn_jump_into_range()
 */
export function insnJumpIntoRange(insn: DecodedInsn, start: bigint, len: number, includeCalls = false): boolean {
  if (insn.nearBranchTarget === undefined) return false;
  const [op, second] = insn.opcode;
  const relative =
    (op >= 0xe0 && op <= 0xe3) ||
    op === 0xe9 ||
    op === 0xeb ||
    (op & 0xf0) === 0x70 ||
    (op === 0x0f && (second & 0xf0) === 0x80) ||
    (includeCalls && op === 0xe8);
  if (!relative) return false;
  const target = insn.nearBranchTarget;
  return start <= target && target <= start + BigInt(len);
}
