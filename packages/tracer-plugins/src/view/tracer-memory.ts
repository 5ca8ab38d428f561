/**
 * Guest memory reads in the address space current on a CPU (the kernel half is the same in every
 * space). Reads never fault: an unmapped byte anywhere in the range gives `undefined`, as the kernel's
 * `_nofault` accessors return -EFAULT.
 *
 * @see include/linux/uaccess.h copy_from_kernel_nofault(), strncpy_from_kernel_nofault()
 * @example
 * const name = ctx.memory.readString(cpu, ctx.regs.get(regs, 'si'), 256);
 */
export interface TracerMemory {
  /** `length` bytes at `address` (a copy), or undefined when any of them is unmapped. */
  read(cpu: number, address: bigint, length: number): Uint8Array | undefined;
  readU8(cpu: number, address: bigint): number | undefined;
  /** Little-endian, as every multi-byte read here. */
  readU16(cpu: number, address: bigint): number | undefined;
  readU32(cpu: number, address: bigint): number | undefined;
  readU64(cpu: number, address: bigint): bigint | undefined;
  /**
   * The NUL-terminated string at `address`, at most `max` bytes (without the NUL), decoded as UTF-8
   * losslessly (an ill-formed byte b becomes U+DC00 + b, see `surrogateEscapeDecode`): guest text,
   * to be escaped before it reaches a terminal. Undefined when a byte before the end is unmapped.
   */
  readString(cpu: number, address: bigint, max: number): string | undefined;
}
