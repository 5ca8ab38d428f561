import type { Boostable } from './apply-resume-fixups.js';
import { type BoostJump, boostFits, boostJump } from './boost-jump.js';
import { canBoost } from './can-boost.js';
import type { ResumeExecutionPlan } from './resume-execution-plan.js';

/** Why a single-stepped copy was not boosted. */
export type BoostRefusal =
  | 'not-boostable'
  | 'exception-table'
  | 'boosting-off'
  | 'post-handler'
  | 'does-not-fit'
  | 'out-of-reach';

/** What is known when a probe's copy has just been single-stepped. */
export interface BoostInput {
  /** `ainsn.boostable` so far: only 0 (boostable, not yet boosted) can change. */
  readonly boostable: Boostable;
  /** `!CONFIG_PREEMPT`: `kprobes.config.boosting`. */
  readonly boosting: boolean;
  /** The probe (the aggregate) has a post-handler: it needs the #DB, so no boost yet. */
  readonly hasPostHandler: boolean;
  readonly plan: ResumeExecutionPlan;
  /** `regs->ip` right after the step (still slot-relative). */
  readonly ip: bigint;
  /** The slot (`copy_ip`) and the probe address (`orig_ip`). */
  readonly slot: bigint;
  readonly orig: bigint;
}

/** The new boost state; `jump` is the `jmp rel32` to write after the copy when one is needed. */
export interface BoostDecision {
  readonly boostable: Boostable;
  readonly jump: BoostJump | undefined;
  /** Set when the probe is not boosted by this step (with `boostable` 0 it may be later). */
  readonly refusal: BoostRefusal | undefined;
}

/**
 * `ainsn.boostable` at copy time: 0 when `can_boost()` accepts the copied bytes and the probe address
 * is not in the exception tables (a page fault there must be fixed up at the original address), else -1.
 * @see arch/x86/kernel/kprobes/core.c arch_copy_kprobe() (4.x)
 */
export function initialBoostable(
  insn: Uint8Array,
  inExceptionTable: boolean,
): { boostable: Boostable; refusal?: BoostRefusal } {
  if (inExceptionTable) return { boostable: -1, refusal: 'exception-table' };
  return canBoost(insn) ? { boostable: 0 } : { boostable: -1, refusal: 'not-boostable' };
}

/**
 * The lazy boost decision of 2.6/4.x `resume_execution()`, taken after a single-step of the copy:
 * `ret`/`iret`/`jmp far` (ip already absolute) are boosted as they are; an instruction that fell
 * through to `slot + len` gets a `jmp rel32` back to `orig + len` when `len + 5 < MAX_INSN_SIZE`,
 * else it is never boosted. Nothing changes while boosting is off (CONFIG_PREEMPT) or the probe has a
 * post-handler (it must see the #DB): a later step decides again.
 * @see arch/x86/kernel/kprobes/core.c resume_execution() (4.x), kprobe_handler() (2.6.x)
 */
export function decideBoost(input: BoostInput): BoostDecision {
  const { boostable, ip, slot, orig } = input;
  if (boostable !== 0) return Object.freeze({ boostable, jump: undefined, refusal: undefined });
  const stay = (refusal: BoostRefusal): BoostDecision => Object.freeze({ boostable: 0, jump: undefined, refusal });
  const never = (refusal: BoostRefusal): BoostDecision => Object.freeze({ boostable: -1, jump: undefined, refusal });
  if (!input.boosting) return stay('boosting-off');
  if (input.hasPostHandler) return stay('post-handler');
  switch (input.plan.type) {
    case 'absolute-ip':
      return Object.freeze({ boostable: 1, jump: undefined, refusal: undefined });
    case 'call-indirect':
    case 'call-rel32':
    case 'jmp-indirect':
      // can_boost() refuses these at copy time; kept out should a caller pass 0 anyway.
      return never('not-boostable');
    default: {
      const ran = ip - slot;
      if (ip <= slot || !boostFits(Number(ran))) return never('does-not-fit');
      const jump = boostJump(slot, Number(ran), orig + ran);
      if (!jump) return never('out-of-reach');
      return Object.freeze({ boostable: 1, jump, refusal: undefined });
    }
  }
}
