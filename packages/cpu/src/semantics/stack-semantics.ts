import { borrowOut, carryOut } from './alu-semantics.js';
import type { RegStage } from './reg-semantics.js';

/**
 * The stack pointer's arithmetic, as source text over a {@link RegStage} (RSP is register 4, RBP 5;
 * both as int32 halves, the carry or borrow between them branch-free: alu-semantics' carryOut and
 * borrowOut): what CpuCore's push/pop and execFlow's leave run, and what the compiler
 * writes for the same instructions. A byte count `n` is known (a number) or a run-time local.
 * @see Intel SDM Vol. 1 §6.2 (stacks), Vol. 2B (PUSH, POP, LEAVE)
 */

/**
 * RSP − `n` into new locals `l`/`h` (declared with `decl`), RSP itself untouched: a push writes its
 * value there first and moves RSP only once the store succeeded, so a faulting push changes nothing.
 */
export function pushedRsp(n: number | string, s: RegStage, l: string, h: string, decl: string): string[] {
  return [
    `${decl}${l} = (${s.lo(4)} - ${n}) | 0;`,
    `${decl}${h} = (${s.hi(4)} - ${borrowOut(s.lo(4), `${n}`, l)}) | 0;`,
  ];
}

/** RSP = `l`:`h` (the halves {@link pushedRsp} computed), once the push's store succeeded. */
export function commitRsp(s: RegStage, l: string, h: string): string[] {
  return [`${s.lo(4)} = ${l};`, `${s.hi(4)} = ${h};`];
}

/** RSP += `n` (a pop, ret, ret imm16), once what was popped has been read; `t` a fresh local. */
export function poppedRsp(n: number | string, s: RegStage, t: string): string[] {
  return [
    `const ${t} = (${s.lo(4)} + ${n}) | 0;`,
    `${s.hi(4)} = (${s.hi(4)} + ${carryOut(s.lo(4), `${n}`, t)}) | 0;`,
    `${s.lo(4)} = ${t};`,
  ];
}

/**
 * leave's RSP = RBP + `n` (the operand size popped into RBP/BP), before RBP is written; `t` a fresh
 * local.
 */
export function leaveRsp(n: number | string, s: RegStage, t: string): string[] {
  return [
    `const ${t} = (${s.lo(5)} + ${n}) | 0;`,
    `${s.hi(4)} = (${s.hi(5)} + ${carryOut(s.lo(5), `${n}`, t)}) | 0;`,
    `${s.lo(4)} = ${t};`,
  ];
}
