import { skipPrefixes } from './skip-prefixes.js';

/**
 * What `resume_execution()` must do after the copy of an instruction was single-stepped in its slot:
 * - `pushf`: put the pre-probe TF/IF into the pushed flags image, then the generic ip fixup;
 * - `call-rel32`: point the pushed return address back at the original code, then the generic fixup;
 * - `absolute-ip` (`ret`, `ret $n`, `lret`, `iret`, `jmp far`): ip is already right; boostable at once;
 * - `call-indirect` (`ff /2`, `ff /3`): fix the return address, ip is already right; never boosted;
 * - `jmp-indirect` (`ff /4`, `ff /5`): ip is already right; boostable at once;
 * - `generic`: `ip += orig - copy`, and boost lazily when the copy plus a jump fits in the slot.
 * @see arch/x86/kernel/kprobes/core.c resume_execution()
 */
export type ResumeExecutionPlan =
  | { readonly type: 'pushf' }
  | { readonly type: 'call-rel32' }
  | { readonly type: 'absolute-ip' }
  | { readonly type: 'call-indirect' }
  | { readonly type: 'jmp-indirect' }
  | { readonly type: 'generic' };

/** What Grp5 (`ff`) does for a ModRM byte, by its reg field (bits 5:3). */
export type Group5Kind = 'call-indirect' | 'jmp-indirect' | 'other';

/**
 * Classifies Grp5 (`ff /r`) by the **reg field of its ModRM byte**: reg 2/3 = `call` near/far
 * indirect, reg 4/5 = `jmp` near/far indirect, anything else (inc, dec, push) = other.
 *
 * The 2.6.16/2.6.17 x86_64 port got this wrong: after skipping a REX prefix it tested `*insn` — the
 * `0xff` opcode byte itself — instead of `insn[1]`, the ModRM byte. Since `0xff & 0x30 == 0x30`,
 * neither the call nor the jmp test could ever match, so a probe on `call *%rax` left the pushed
 * return address pointing after the slot copy and added `orig - copy` to the absolute target:
 * "kernel panic of Bad RIP value". Satoshi Oshima's fix (May 2006, "kprobes: bad manupilation of
 * 2 byte opcode on x86_64") tests the second byte; i386 never had the bug. Feeding this function the
 * opcode byte reproduces the bug (`group5Kind(0xff)` is `'other'`): pass the ModRM byte.
 * @see arch/x86/kernel/kprobes/core.c resume_execution(); Intel SDM Vol. 2A Table A-6 (Grp5)
 */
export function group5Kind(modrm: number): Group5Kind {
  const reg = (modrm >> 3) & 7;
  if (reg === 2 || reg === 3) return 'call-indirect';
  if (reg === 4 || reg === 5) return 'jmp-indirect';
  return 'other';
}

const PLANS = {
  pushf: Object.freeze({ type: 'pushf' }),
  callRel32: Object.freeze({ type: 'call-rel32' }),
  absoluteIp: Object.freeze({ type: 'absolute-ip' }),
  callIndirect: Object.freeze({ type: 'call-indirect' }),
  jmpIndirect: Object.freeze({ type: 'jmp-indirect' }),
  generic: Object.freeze({ type: 'generic' }),
} as const satisfies Record<string, ResumeExecutionPlan>;

/**
 * Chooses the `resume_execution()` fixup for the instruction at the start of `bytes`, switching on
 * the opcode after the legacy prefixes and one REX, and for `ff` on the ModRM reg field.
 * @see arch/x86/kernel/kprobes/core.c resume_execution()
 * @example
 * resumeExecutionPlan(Uint8Array.of(0xff, 0xd0)); // { type: 'call-indirect' } (call *%rax)
 */
export function resumeExecutionPlan(bytes: Uint8Array): ResumeExecutionPlan {
  const at = skipPrefixes(bytes);
  switch (bytes[at]) {
    case 0x9c:
      return PLANS.pushf;
    case 0xc2:
    case 0xc3:
    case 0xca:
    case 0xcb:
    case 0xcf:
    case 0xea:
      return PLANS.absoluteIp;
    case 0xe8:
      return PLANS.callRel32;
    case 0xff: {
      const kind = group5Kind(bytes[at + 1] ?? 0);
      if (kind === 'call-indirect') return PLANS.callIndirect;
      if (kind === 'jmp-indirect') return PLANS.jmpIndirect;
      return PLANS.generic;
    }
    default:
      return PLANS.generic;
  }
}
