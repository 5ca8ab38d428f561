import type { CorpusFunction, IntType, ReturnType } from './corpus-manifest.js';

/** A buffer passed by pointer in argument `slot`. */
export interface CallBuffer {
  readonly slot: number;
  readonly bytes: Uint8Array;
}

/** One call of a corpus function, as both harnesses run it. */
export interface CorpusCall {
  /** Index into `CORPUS_FUNCTIONS`. */
  readonly fn: number;
  /** Six 64-bit argument registers (two's complement); buffer slots are replaced by pointers. */
  readonly args: readonly bigint[];
  readonly buffers: readonly CallBuffer[];
}

/** What a call produced: the return value normalised to its C type, and every buffer afterwards. */
export interface CorpusResult {
  /** Low 64 bits of the C value, zero- or sign-extended to 64 bits as its type says (0 for void). */
  readonly lo: bigint;
  /** High 64 bits of a 128-bit result, else 0. */
  readonly hi: bigint;
  readonly buffers: readonly string[];
}

const WIDTH: Record<IntType, number> = { u8: 8, i8: 8, u16: 16, i16: 16, u32: 32, i32: 32, u64: 64, i64: 64 };

/** Bits of an integer type. */
export function intWidth(type: IntType): number {
  return WIDTH[type];
}

/** Whether an integer type is signed. */
export function isSigned(type: IntType): boolean {
  return type.startsWith('i');
}

/** A value of `type` as the 64-bit register the SysV ABI passes it in (sign-extended if signed). */
export function toRegister(type: IntType, value: bigint): bigint {
  const w = WIDTH[type];
  const v = isSigned(type) ? BigInt.asIntN(w, value) : BigInt.asUintN(w, value);
  return BigInt.asUintN(64, v);
}

/** Normalises rax (and rdx) the way the native dispatcher's C casts do. */
export function normaliseReturn(returns: ReturnType, rax: bigint, rdx: bigint): { lo: bigint; hi: bigint } {
  if (returns === 'void') return { lo: 0n, hi: 0n };
  if (returns === 'u128' || returns === 'i128') return { lo: rax, hi: rdx };
  return { lo: toRegister(returns, rax), hi: 0n };
}

/** Bytes as lowercase hex, '-' when empty (the harness protocol). */
export function toHex(bytes: Uint8Array): string {
  return bytes.length === 0 ? '-' : Buffer.from(bytes).toString('hex');
}

/** A call in readable form for failure messages: `name(0x1, buf[3]=010203, ...)`. */
export function describeCall(f: CorpusFunction, call: CorpusCall): string {
  const parts = f.args.map((spec, i) => {
    const b = call.buffers.find((x) => x.slot === i);
    if (b) return `${spec.kind === 'string' ? 'str' : 'buf'}[${b.bytes.length}]=${toHex(b.bytes)}`;
    const v = call.args[i];
    return spec.kind === 'int' && isSigned(spec.type) ? BigInt.asIntN(64, v).toString() : `0x${v.toString(16)}`;
  });
  return `${f.name}(${parts.join(', ')})`;
}
