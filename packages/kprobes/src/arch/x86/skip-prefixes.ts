/**
 * Whether `b` is one of the eleven legacy prefixes: operand/address size (`66 67`), segment overrides
 * (`26 2e 36 3e 64 65`), `lock` (`f0`) and `rep`/`repne` (`f3 f2`).
 * @see arch/x86/lib/inat.c inat_is_legacy_prefix(); Intel SDM Vol. 2A §2.1.1 (instruction prefixes)
 */
export function isLegacyPrefix(b: number): boolean {
  switch (b) {
    case 0x26:
    case 0x2e:
    case 0x36:
    case 0x3e:
    case 0x64:
    case 0x65:
    case 0x66:
    case 0x67:
    case 0xf0:
    case 0xf2:
    case 0xf3:
      return true;
    default:
      return false;
  }
}

/**
 * Whether `b` is a REX prefix (`40`–`4f`, 64-bit mode only).
 * @see arch/x86/kernel/kprobes/core.c is_REX_prefix(); Intel SDM Vol. 2A §2.2.1 (REX prefixes)
 */
export function isRexPrefix(b: number): boolean {
  return (b & 0xf0) === 0x40;
}

/**
 * The offset of the opcode in `bytes`: past every legacy prefix, then past one REX prefix, as the
 * unified x86 port's `skip_prefixes()` does (and the old x86_64 `is_riprel()` before it). Stops at the
 * end of `bytes` (a buffer made only of prefixes returns `bytes.length`).
 * @see arch/x86/kernel/kprobes/core.c skip_prefixes()
 */
export function skipPrefixes(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length && isLegacyPrefix(bytes[i])) i++;
  if (i < bytes.length && isRexPrefix(bytes[i])) i++;
  return i;
}
