/**
 * Operations of a compiled fetch argument, in the kernel's stages: fetch a base value, dereference it,
 * store it as the type, modify (bitfield), loop (array).
 *
 * @see kernel/trace/trace_probe.h enum fetch_op
 */
export type FetchOp =
  /** Stage 1: register `data` (an x86-64 pt_regs name). */
  | 'reg'
  /** Stage 1: the `param`th kernel stack word. */
  | 'stack'
  /** Stage 1: the stack pointer. */
  | 'stackp'
  /** Stage 1: the return value (`ax`). */
  | 'retval'
  /** Stage 1: the current task's comm (as a string source). */
  | 'comm'
  /** Stage 1: function argument `param` (0-based). */
  | 'arg'
  /** Stage 1: function argument `param` (0-based) captured at function entry, for return probes. */
  | 'edata'
  /** Stage 1: `immediate`. */
  | 'imm'
  /** Stage 1: the immediate string `data`. */
  | 'data'
  /** Placeholder naming the data symbol `data` (`SYM[+|-offs]`); the next `imm` gets its address. */
  | 'symbol'
  /** Stage 2: read a kernel word at value + `offset`. */
  | 'deref'
  /** Stage 2: read a user word at value + `offset`. */
  | 'uderef'
  /** Stage 3: store the value's low `size` bytes. */
  | 'st_raw'
  /** Stage 3: store `size` kernel bytes at value + `offset`. */
  | 'st_mem'
  /** Stage 3: store `size` user bytes at value + `offset`. */
  | 'st_umem'
  /** Stage 3: store the kernel string at value + `offset`. */
  | 'st_string'
  /** Stage 3: store the user string at value + `offset`. */
  | 'st_ustring'
  /** Stage 3: store the symbolized value + `offset` as a string. */
  | 'st_symstr'
  /** Stage 4: bitfield `(x << lshift) >> rshift` on a `basesize`-byte container. */
  | 'mod_bf'
  /** Last stage: repeat the store `param` times. */
  | 'lp_array'
  | 'end';

/**
 * One fetch instruction. All instructions share one shape (fields unused by an op are zero or
 * undefined) so the evaluator's property reads stay monomorphic.
 *
 * @see kernel/trace/trace_probe.h struct fetch_insn
 */
export interface FetchInsn {
  readonly op: FetchOp;
  readonly param: number;
  readonly offset: bigint;
  readonly immediate: bigint;
  readonly data: string | undefined;
  readonly size: number;
  readonly lshift: number;
  readonly rshift: number;
  readonly basesize: number;
}

/** A mutable instruction, as the parser fills its code buffer. */
export interface MutableFetchInsn {
  op: FetchOp | 'nop';
  param: number;
  offset: bigint;
  immediate: bigint;
  data: string | undefined;
  size: number;
  lshift: number;
  rshift: number;
  basesize: number;
}

/** A blank (`FETCH_OP_NOP`) instruction. */
export function nopInsn(): MutableFetchInsn {
  return {
    op: 'nop',
    param: 0,
    offset: 0n,
    immediate: 0n,
    data: undefined,
    size: 0,
    lshift: 0,
    rshift: 0,
    basesize: 0,
  };
}
