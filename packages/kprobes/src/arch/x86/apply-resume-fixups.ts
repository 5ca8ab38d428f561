import { type BoostJump, boostFits, boostJump } from './boost-jump.js';
import type { ResumeExecutionPlan } from './resume-execution-plan.js';
import { X86_EFLAGS_IF, X86_EFLAGS_TF } from './x86-constants.js';

/**
 * `ainsn.boostable`: -1 = never boost, 0 = boostable but not yet boosted, 1 = boosted (a jump back
 * follows the copy in the slot).
 * @see arch/x86/include/asm/kprobes.h struct arch_specific_insn
 */
export type Boostable = -1 | 0 | 1;

/** The state `resume_execution()` works on. */
export interface ResumeContext {
  /** `regs->ip` after the single-step of the copy. */
  readonly ip: bigint;
  /** `regs->sp` after the single-step (the top of stack `tos`). */
  readonly sp: bigint;
  /** Slot address (`ainsn.insn`, `copy_ip`). */
  readonly slot: bigint;
  /** Probe address (`p->addr`, `orig_ip`). */
  readonly orig: bigint;
  /** `kcb->kprobe_old_flags`: the TF and IF bits of the flags before the probe hit. */
  readonly oldFlags: bigint;
  /** `ainsn.boostable` before this step (default -1). `absolute-ip` and `jmp-indirect` set 1 whatever it was, as 4.x does. */
  readonly boostable?: Boostable;
  readU64(address: bigint): bigint;
  writeU64(address: bigint, value: bigint): void;
}

/** What `resume_execution()` decided. */
export interface ResumeOutcome {
  /** The new `regs->ip`. The caller also clears TF in `regs->flags`. */
  readonly ip: bigint;
  /** The new `ainsn.boostable`. */
  readonly boostable: Boostable;
  /** When the probe just became boosted: the `jmp rel32` to write into the slot after the copy. */
  readonly boostJump: BoostJump | undefined;
}

const U64 = (1n << 64n) - 1n;

/**
 * Carries out a {@link ResumeExecutionPlan}: fixes the stack through `readU64`/`writeU64` (the
 * pushed flags of `pushf`, the return address of a call, `*tos = orig + (*tos - slot)`), decides the
 * lazy boost (a generic instruction that fell through to `slot + len` with `len + 5 < MAX_INSN_SIZE`
 * gets a jump back appended) and returns the new ip (`ip + orig - slot` on the generic path).
 * @see arch/x86/kernel/kprobes/core.c resume_execution()
 */
export function applyResumeFixups(plan: ResumeExecutionPlan, ctx: ResumeContext): ResumeOutcome {
  const { ip, sp, slot, orig } = ctx;
  const boostable = ctx.boostable ?? -1;
  switch (plan.type) {
    case 'absolute-ip':
    case 'jmp-indirect':
      return Object.freeze({ ip, boostable: 1, boostJump: undefined });
    case 'call-indirect':
      fixReturnAddress(ctx);
      return Object.freeze({ ip, boostable, boostJump: undefined });
    case 'pushf': {
      const image = ctx.readU64(sp);
      ctx.writeU64(sp, (image & ~(X86_EFLAGS_TF | X86_EFLAGS_IF)) | ctx.oldFlags);
      break;
    }
    case 'call-rel32':
      fixReturnAddress(ctx);
      break;
    case 'generic':
      break;
  }
  // Generic ip fixup: the copy ran at `slot`, the original lives at `orig`.
  let next: Boostable = boostable;
  let jump: BoostJump | undefined;
  if (boostable === 0) {
    const ran = ip - slot;
    if (ip > slot && boostFits(Number(ran))) {
      jump = boostJump(slot, Number(ran), orig + ran);
      next = jump === undefined ? -1 : 1;
    } else {
      next = -1;
    }
  }
  return Object.freeze({ ip: (ip + orig - slot) & U64, boostable: next, boostJump: jump });
}

function fixReturnAddress(ctx: ResumeContext): void {
  const ret = ctx.readU64(ctx.sp);
  ctx.writeU64(ctx.sp, (ctx.orig + (ret - ctx.slot)) & U64);
}
