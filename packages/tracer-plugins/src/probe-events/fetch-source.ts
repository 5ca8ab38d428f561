/**
 * What evaluating fetch arguments reads at a probe hit, in the allocation-free form the hot path uses:
 * 64-bit values travel as two unsigned 32-bit halves in a caller's `out` array (`out[0]` low,
 * `out[1]` high), and memory is copied straight into the record being built. A read of memory that is
 * not readable is a fault (`false` / `-1`), which the kernel's `*_nofault` accessors absorb.
 *
 * @see kernel/trace/trace_kprobe.c process_fetch_insn(), probe_mem_read(), fetch_store_string()
 */
export interface FetchSource {
  /** Loads the pt_regs member with index `reg` in `PT_REGS_NAMES` (`@int3/kernel`). */
  loadRegister(reg: number, out: Uint32Array): void;
  /** Loads the `n`th kernel stack word (0 when past its top). @see regs_get_kernel_stack_nth() */
  loadStackNth(n: number, out: Uint32Array): void;
  /** Return probes: loads function argument `n` (0-based) captured at entry (0 when none). */
  loadEntryArg(n: number, out: Uint32Array): void;
  /** Copies `length` (≤ 4096) bytes at `hi:lo` to `dst[at…]`; false, with nothing written, on a fault. */
  copyMemory(lo: number, hi: number, length: number, user: boolean, dst: Uint8Array, at: number): boolean;
  /**
   * Copies the NUL-terminated string at `hi:lo` to `dst[at…]` (only measures it when `dst` is null),
   * at most `max` bytes including the NUL (a longer string is cut and NUL-terminated). Returns the
   * bytes stored including the NUL, or -1 on a fault. @see strncpy_from_kernel_nofault()
   */
  copyString(lo: number, hi: number, user: boolean, dst: Uint8Array | null, at: number, max: number): number;
  /** The current task's comm. */
  readonly comm: string;
  /** `%pS`-style text for `symstr` (`sym+0xoff/0xsize`), undefined if the address has no symbol. */
  symbolize?(address: bigint): string | undefined;
}
