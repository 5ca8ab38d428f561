import type { ErrnoName } from '../../kprobe-error.js';
import { canBoost } from './can-boost.js';
import { type DecodedInsn, decodeInsn } from './decode-insn.js';
import { fetchInsnBytes, type ReadByte, type RecoverByte } from './fetch-insn-bytes.js';
import { insnIsIndirectJump } from './insn-is-indirect-jump.js';
import { insnJumpIntoRange } from './insn-jump-into-range.js';
import { BREAKPOINT_INSTRUCTION, RELATIVE_ADDR_SIZE, RELATIVEJUMP_SIZE } from './x86-constants.js';

/** Why a probe cannot be jump-optimized. */
export type CanOptimizeReason =
  | 'outside-function'
  | 'entry-text'
  | 'too-close-to-end'
  | 'exception-table'
  | 'undecodable'
  | 'foreign-int3'
  | 'indirect-jump'
  | 'jump-into-region'
  | 'call-in-region'
  | 'not-boostable'
  | 'straddles-function-end';

/** The detoured code region (DCR) of an optimizable probe. */
export interface OptimizableRegion {
  readonly ok: true;
  /** Bytes the DCR covers (at least `RELATIVEJUMP_SIZE`, at most `MAX_OPTIMIZED_LENGTH`). */
  readonly regionLength: number;
  /** The DCR instructions, first at the probe address. */
  readonly insns: readonly DecodedInsn[];
}

/** A refusal; `errno` is what `arch_prepare_optimized_kprobe()` would return. */
export interface NotOptimizable {
  readonly ok: false;
  readonly reason: CanOptimizeReason;
  readonly errno: ErrnoName;
  /** The instruction (or address) that caused the refusal. */
  readonly at: bigint;
  readonly message: string;
}

/** Facts about the kernel the caller knows and the decoder does not. */
export interface CanOptimizeOptions {
  /** The address lies in entry text (`__entry_text_start..end`): unstable stack handling. */
  readonly inEntryText?: boolean;
  /** `search_exception_tables(address)`: an instruction whose fault is fixed up elsewhere. */
  readonly inExceptionTable?: (address: bigint) => boolean;
  /** Original bytes under armed probes. */
  readonly recover?: RecoverByte | undefined;
}

function hex(a: bigint): string {
  return `0x${a.toString(16)}`;
}

function refuse(reason: CanOptimizeReason, errno: ErrnoName, at: bigint, message: string): NotOptimizable {
  return Object.freeze({ ok: false, reason, errno, at, message });
}

/**
 * Decides whether the probe at `addr` can be replaced by a 5-byte `jmp` to a detour buffer, and
 * which instructions the jump displaces. Step 1: the checks of `can_optimize()` (`-EILSEQ`): inside
 * a function, not in entry text, at least 5 bytes before the function end; then the whole function
 * is decoded and refused on an exception-table entry, an undecodable instruction, a foreign int3, any
 * indirect jump ("indirect jump in function", a jump table could land inside the region), or a
 * relative jump/loop/call into the Jump Target Prohibition Region `addr+1 .. addr+4` (end included,
 * so `addr+5` too). Step 2: the checks of `copy_optimized_instructions()` (`-EINVAL`): the DCR
 * instructions covering 5 bytes must each be boostable, must not be calls, and must not run past the
 * function end. RIP-relative operands are checked when the region is relocated
 * (`relocateRegion()`); armed probes inside the region are the core's business
 * (`arch_check_optimized_kprobe()`).
 * @see arch/x86/kernel/kprobes/opt.c can_optimize(), copy_optimized_instructions()
 */
export function canOptimize(
  readByte: ReadByte,
  funcStart: bigint,
  funcSize: bigint,
  addr: bigint,
  options: CanOptimizeOptions = {},
): OptimizableRegion | NotOptimizable {
  const funcEnd = funcStart + funcSize;
  const inTable = options.inExceptionTable ?? (() => false);
  if (addr < funcStart || addr >= funcEnd) {
    return refuse('outside-function', 'EILSEQ', addr, `${hex(addr)} is not inside a function`);
  }
  if (options.inEntryText) return refuse('entry-text', 'EILSEQ', addr, 'cannot optimize a probe in entry text');
  if (funcEnd - addr < BigInt(RELATIVEJUMP_SIZE)) {
    return refuse('too-close-to-end', 'EILSEQ', addr, 'fewer than 5 bytes left before the function end');
  }
  for (let at = funcStart; at < funcEnd; ) {
    if (inTable(at)) return refuse('exception-table', 'EILSEQ', at, `${hex(at)} is in the exception tables`);
    const insn = decodeInsn(fetchInsnBytes(readByte, at, options.recover), at);
    if (insn.invalid) return refuse('undecodable', 'EILSEQ', at, `cannot decode the instruction at ${hex(at)}`);
    if (insn.opcode[0] === BREAKPOINT_INSTRUCTION) {
      return refuse('foreign-int3', 'EILSEQ', at, `another subsystem's int3 at ${hex(at)}`);
    }
    if (insnIsIndirectJump(insn)) {
      return refuse('indirect-jump', 'EILSEQ', at, `indirect jump in function (${insn.text} at ${hex(at)})`);
    }
    if (insnJumpIntoRange(insn, addr + 1n, RELATIVE_ADDR_SIZE, true)) {
      return refuse('jump-into-region', 'EILSEQ', at, `${insn.text} at ${hex(at)} jumps into the optimized region`);
    }
    at += BigInt(insn.length);
  }
  return detouredRegion(readByte, funcEnd, addr, inTable, options.recover);
}

function detouredRegion(
  readByte: ReadByte,
  funcEnd: bigint,
  addr: bigint,
  inTable: (address: bigint) => boolean,
  recover: RecoverByte | undefined,
): OptimizableRegion | NotOptimizable {
  const insns: DecodedInsn[] = [];
  let len = 0;
  while (len < RELATIVEJUMP_SIZE) {
    const at = addr + BigInt(len);
    const bytes = fetchInsnBytes(readByte, at, recover);
    const insn = decodeInsn(bytes, at);
    if (insn.invalid) return refuse('undecodable', 'EINVAL', at, `cannot decode the instruction at ${hex(at)}`);
    if (insn.flow === 'call' || insn.flow === 'indirect-call') {
      return refuse('call-in-region', 'EINVAL', at, `${insn.text} at ${hex(at)}: the region must not contain a call`);
    }
    if (!canBoost(bytes, inTable(at))) {
      return refuse('not-boostable', 'EINVAL', at, `${insn.text} at ${hex(at)} cannot run out of line`);
    }
    insns.push(insn);
    len += insn.length;
  }
  if (addr + BigInt(len) > funcEnd) {
    return refuse('straddles-function-end', 'EINVAL', addr, 'the optimized region straddles the function end');
  }
  return Object.freeze({ ok: true, regionLength: len, insns: Object.freeze(insns) });
}
