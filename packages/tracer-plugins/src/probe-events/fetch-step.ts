import { PT_REGS_NAMES, SYSV_ARG_PT_REGS } from '@int3/kernel';
import type { FetchInsn, FetchOp } from './fetch-insn.js';

const encoder = new TextEncoder();

/**
 * One fetch instruction prepared for the hit path: 64-bit offsets and immediates split into unsigned
 * 32-bit halves, register names resolved to their pt_regs index, immediate strings encoded once. Every
 * step has the same shape so the evaluator's property reads stay monomorphic.
 *
 * @see kernel/trace/trace_probe.h struct fetch_insn
 */
export interface FetchStep {
  readonly op: FetchOp;
  readonly param: number;
  /** Register index (`reg`, `arg` below seven) into `PT_REGS_NAMES`, else -1. */
  readonly reg: number;
  readonly offLo: number;
  readonly offHi: number;
  readonly immLo: number;
  readonly immHi: number;
  /** The `offset` as given (bitfields and symstr keep using it off the hot path). */
  readonly offset: bigint;
  /** `data` ops: the immediate string's UTF-8 bytes. */
  readonly text: Uint8Array | undefined;
  readonly size: number;
  readonly lshift: number;
  readonly rshift: number;
  readonly basesize: number;
}

const REG_INDEX = new Map<string, number>(PT_REGS_NAMES.map((n, i) => [n, i]));

function regIndex(insn: FetchInsn): number {
  if (insn.op === 'reg') return REG_INDEX.get(insn.data ?? '') ?? -1;
  if (insn.op === 'stackp') return REG_INDEX.get('sp') ?? -1;
  if (insn.op === 'retval') return REG_INDEX.get('ax') ?? -1;
  if (insn.op === 'arg' && insn.param < SYSV_ARG_PT_REGS.length)
    return REG_INDEX.get(SYSV_ARG_PT_REGS[insn.param]) ?? -1;
  return -1;
}

/**
 * Prepares an argument's fetch program for {@link processFetchInsn}; done once per probe definition.
 *
 * @example
 * const steps = compileFetchSteps(def.args[0].code);
 */
export function compileFetchSteps(code: readonly FetchInsn[]): readonly FetchStep[] {
  return Object.freeze(
    code.map((insn) => {
      const off = BigInt.asUintN(64, insn.offset);
      const imm = BigInt.asUintN(64, insn.immediate);
      return Object.freeze({
        op: insn.op,
        param: insn.param,
        reg: regIndex(insn),
        offLo: Number(off & 0xffffffffn),
        offHi: Number(off >> 32n),
        immLo: Number(imm & 0xffffffffn),
        immHi: Number(imm >> 32n),
        offset: insn.offset,
        text: insn.op === 'data' ? encoder.encode(insn.data ?? '') : undefined,
        size: insn.size,
        lshift: insn.lshift,
        rshift: insn.rshift,
        basesize: insn.basesize,
      });
    }),
  );
}
