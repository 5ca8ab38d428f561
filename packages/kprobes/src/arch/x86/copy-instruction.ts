import { type DecodedInsn, decodeInsn } from './decode-insn.js';
import { BREAKPOINT_INSTRUCTION } from './x86-constants.js';

/** The instruction as it goes into a slot. */
export interface CopiedInstruction {
  readonly ok: true;
  /** The bytes to write into the slot (`length` of them), disp32 already adjusted. */
  readonly insn: Uint8Array;
  /** Its length. */
  readonly length: number;
  /** `p->opcode`: the first byte of the copy, restored on disarm. The fixup never changes it. */
  readonly opcode: number;
  /** The decoded original instruction. */
  readonly decoded: DecodedInsn;
}

/** Why an instruction cannot be copied; `arch_prepare_kprobe()` returns `-EINVAL`. */
export interface CopyRefused {
  readonly ok: false;
  readonly reason: 'undecodable' | 'breakpoint' | 'displacement-overflow';
  readonly message: string;
}

const S32_MIN = -(1n << 31n);
const S32_MAX = (1n << 31n) - 1n;

/** `%llx` of a signed 64-bit value (two's complement). */
function llx(v: bigint): string {
  return BigInt.asUintN(64, v).toString(16);
}

/**
 * Copies the instruction at the start of `bytes` (the original, recovered bytes at `origAddr`) for
 * execution at `slotAddr`. A `[rip+disp32]` operand is re-aimed so it still reaches the same byte:
 * `newdisp = origAddr + disp - slotAddr`; when that does not fit in s32 the copy is refused with the
 * kernel's message. An instruction whose opcode is `0xcc` is refused: another subsystem's breakpoint
 * hides the original and it cannot be recovered.
 * @see arch/x86/kernel/kprobes/core.c __copy_instruction(), arch_copy_kprobe()
 */
export function copyInstruction(
  bytes: Uint8Array,
  origAddr: bigint,
  slotAddr: bigint,
): CopiedInstruction | CopyRefused {
  const decoded = decodeInsn(bytes, origAddr);
  if (decoded.invalid) {
    return Object.freeze({ ok: false, reason: 'undecodable', message: 'Kprobes error: cannot decode the instruction' });
  }
  if (decoded.opcode[0] === BREAKPOINT_INSTRUCTION) {
    return Object.freeze({
      ok: false,
      reason: 'breakpoint',
      message: 'Another subsystem puts a breakpoint, failed to recover the original instruction',
    });
  }
  const insn = Uint8Array.from(decoded.bytes);
  if (decoded.ripRelative) {
    const view = new DataView(insn.buffer);
    const disp = BigInt(view.getInt32(decoded.dispOffset, true));
    const newdisp = origAddr + disp - slotAddr;
    if (newdisp < S32_MIN || newdisp > S32_MAX) {
      return Object.freeze({
        ok: false,
        reason: 'displacement-overflow',
        message: `Kprobes error: new displacement does not fit into s32 (${llx(newdisp)})`,
      });
    }
    view.setInt32(decoded.dispOffset, Number(newdisp), true);
  }
  return Object.freeze({ ok: true, insn, length: decoded.length, opcode: insn[0], decoded });
}
