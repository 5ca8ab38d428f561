import { skipPrefixes } from './skip-prefixes.js';

/**
 * Whether the instruction changes IF: `fa` cli, `fb` sti, `cf` iret (REX-prefixed `48 cf` iretq
 * included) or `9d` popf, tested after the legacy prefixes and one REX. The core drops IF from the
 * flags it restores after single-stepping such an instruction, so that the instruction's own effect
 * on IF stands.
 * @see arch/x86/kernel/kprobes/core.c is_IF_modifier(); arch/x86_64/kernel/kprobes.c (2.6.16)
 */
export function isIfModifier(bytes: Uint8Array): boolean {
  switch (bytes[skipPrefixes(bytes)]) {
    case 0xfa:
    case 0xfb:
    case 0xcf:
    case 0x9d:
      return true;
    default:
      return false;
  }
}
