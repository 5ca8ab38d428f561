import type { AddressSpace } from '@int3/cpu';
import { KernelError } from '../kernel-error.js';

/** x86-64 relocation types the module loader applies. */
export const R_X86_64 = { R64: 1, PC32: 2, PLT32: 4, R32: 10, R32S: 11, PC64: 24 } as const;

/**
 * Applies one RELA relocation at `P` with symbol value `S` and addend `A`, refusing a value that does
 * not fit its field (Linux: "overflow in relocation type %d val %Lx").
 *
 * @see arch/x86/kernel/module.c __write_relocate_add()
 */
export function applyRelocation(
  space: AddressSpace,
  P: bigint,
  type: number,
  typeName: string,
  S: bigint,
  A: bigint,
  where: string,
): void {
  const fit32 = (v: bigint, signed: boolean) => {
    const ok = signed ? v >= -(1n << 31n) && v < 1n << 31n : v >= 0n && v < 1n << 32n;
    if (!ok)
      throw new KernelError(
        'BAD_MODULE',
        `${where}: overflow in relocation type ${type} (${typeName}) val 0x${BigInt.asUintN(64, v).toString(16)}`,
      );
    space.writeU32(P, Number(BigInt.asUintN(32, v)));
  };
  switch (type) {
    case R_X86_64.R64:
      space.writeU64(P, BigInt.asUintN(64, S + A));
      return;
    case R_X86_64.PC64:
      space.writeU64(P, BigInt.asUintN(64, S + A - P));
      return;
    case R_X86_64.PC32:
    case R_X86_64.PLT32:
      fit32(BigInt.asIntN(64, S + A - P), true);
      return;
    case R_X86_64.R32S:
      fit32(BigInt.asIntN(64, S + A), true);
      return;
    case R_X86_64.R32:
      fit32(BigInt.asUintN(64, S + A), false);
      return;
    default:
      throw new KernelError('BAD_MODULE', `${where}: unsupported relocation type ${type} (${typeName})`);
  }
}
