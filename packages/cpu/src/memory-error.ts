/**
 * A host-side memory access that the address space cannot satisfy (unmapped byte, double map, bad
 * alignment). Guest accesses never throw this: they raise #PF as a value.
 */
export class MemoryError extends Error {
  /** The first offending guest-virtual address. */
  readonly address: bigint;

  constructor(message: string, address: bigint) {
    super(`${message} at 0x${BigInt.asUintN(64, address).toString(16)}`);
    this.name = 'MemoryError';
    this.address = address;
  }
}
