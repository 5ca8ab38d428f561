/**
 * What evaluating fetch arguments needs from the CPU and kernel at a probe hit, in the simple BigInt
 * form tests and tools write (`fetchContextSource` adapts it to the allocation-free `FetchSource` the
 * evaluator runs on). Reads return `undefined` when the memory is not readable (a fault the kernel's
 * `*_nofault` accessors absorb).
 *
 * @see kernel/trace/trace_kprobe.c process_fetch_insn()
 */
export interface FetchContext {
  /** A pt_regs register by its `%REG` name (`ax`, `di`, `r8`, `ip`, `sp`, `flags`, ...). */
  readRegister(name: string): bigint;
  readKernel(address: bigint, length: number): Uint8Array | undefined;
  readUser(address: bigint, length: number): Uint8Array | undefined;
  /** The `n`th word of the kernel stack, 0 when past its top. @see regs_get_kernel_stack_nth() */
  kernelStackNth(n: number): bigint;
  /** The current task's comm. */
  readonly comm: string;
  /** Return probes: function arguments captured at entry (0-based), for `$argN`. */
  readonly entryArgs?: readonly bigint[];
  /** `%pS`-style text for `symstr` (`sym+0xoff/0xsize`), undefined if the address has no symbol. */
  symbolize?(address: bigint): string | undefined;
}
