import type { AddressSpace } from '@int3/cpu';

/**
 * Writes a process's initial stack below `top` and returns `rsp`: `argc`, `argv[]`, `NULL`, an empty
 * environment (`NULL`), the auxiliary vector's `AT_NULL` pair, and the argument strings above.
 * `rsp` is 16-byte aligned, as the SysV ABI requires at process entry.
 *
 * @see System V AMD64 ABI §3.4.1 "Initial Stack and Register State"
 */
export function buildUserStack(space: AddressSpace, top: bigint, argv: readonly string[]): bigint {
  const enc = new TextEncoder();
  let p = top;
  const pointers: bigint[] = [];
  for (let i = argv.length - 1; i >= 0; i--) {
    const bytes = enc.encode(`${argv[i]}\0`);
    p -= BigInt(bytes.length);
    space.write(p, bytes);
    pointers.unshift(p);
  }
  const words = [BigInt(argv.length), ...pointers, 0n, 0n, 0n, 0n];
  const rsp = (p - BigInt(words.length * 8)) & ~0xfn;
  for (let i = 0; i < words.length; i++) space.writeU64(rsp + BigInt(i * 8), words[i]);
  return rsp;
}
