import { type DecodedInsn, decodeInsn } from './decode-insn.js';
import { fetchInsnBytes, type ReadByte, type RecoverByte } from './fetch-insn-bytes.js';
import { isExceptionInsn } from './is-exception-insn.js';
import { BREAKPOINT_INSTRUCTION } from './x86-constants.js';

/** Why an address cannot be probed. */
export type CanProbeReason = 'outside-function' | 'undecodable' | 'foreign-int3' | 'not-boundary' | 'exception-insn';

/** The outcome of {@link canProbe}; every refusal is `-EILSEQ` in `arch_prepare_kprobe()`. */
export type CanProbeResult =
  | { readonly ok: true; readonly insn: DecodedInsn }
  | { readonly ok: false; readonly reason: CanProbeReason; readonly at: bigint; readonly message: string };

/** Options of {@link canProbe}. */
export interface CanProbeOptions {
  /** Refuse UD0/UD1/UD2/INT3/INT n/INTO/INT1 at `addr`, as kernels since 6.9 do (default true). */
  readonly refuseExceptionInsn?: boolean;
}

function hex(a: bigint): string {
  return `0x${a.toString(16)}`;
}

function refuse(reason: CanProbeReason, at: bigint, message: string): CanProbeResult {
  return Object.freeze({ ok: false, reason, at, message });
}

/**
 * The x86 instruction-boundary check: decode the function from `funcStart` instruction by
 * instruction, through `recover` so bytes under armed probes read as the originals, and accept only
 * when the walk lands exactly on `addr`. An int3 met on the way that `recover` does not explain
 * belongs to another subsystem (a debugger) and the walk cannot continue past it. On success returns
 * the decoded instruction at `addr`.
 * @see arch/x86/kernel/kprobes/core.c can_probe()
 * @example
 * canProbe(read, sym.start, sym.size, sym.start + 4n, recover); // { ok: true, insn } or { ok: false, reason: 'not-boundary', ... }
 */
export function canProbe(
  readByte: ReadByte,
  funcStart: bigint,
  funcSize: bigint,
  addr: bigint,
  recover?: RecoverByte,
  options: CanProbeOptions = {},
): CanProbeResult {
  if (addr < funcStart || addr >= funcStart + funcSize) {
    return refuse('outside-function', addr, `${hex(addr)} is not inside a function`);
  }
  let at = funcStart;
  while (at < addr) {
    const insn = decodeInsn(fetchInsnBytes(readByte, at, recover), at);
    if (insn.invalid) return refuse('undecodable', at, `cannot decode the instruction at ${hex(at)}`);
    if (insn.opcode[0] === BREAKPOINT_INSTRUCTION) {
      return refuse('foreign-int3', at, `another subsystem's int3 at ${hex(at)} hides the original instruction`);
    }
    at += BigInt(insn.length);
  }
  if (at !== addr) {
    return refuse('not-boundary', addr, `${hex(addr)} is not on an instruction boundary (one starts at ${hex(at)})`);
  }
  const bytes = fetchInsnBytes(readByte, addr, recover);
  const insn = decodeInsn(bytes, addr);
  if (insn.invalid) return refuse('undecodable', addr, `cannot decode the instruction at ${hex(addr)}`);
  const exception = options.refuseExceptionInsn === false ? undefined : isExceptionInsn(bytes);
  if (exception) return refuse('exception-insn', addr, exception.reason);
  return Object.freeze({ ok: true, insn });
}
