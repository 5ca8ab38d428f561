import { twobyteIsBoostable } from './twobyte-is-boostable.js';
import { MAX_INSN_SIZE } from './x86-constants.js';

/**
 * Whether the instruction at the start of `bytes` may run out of line with a jump back instead of a
 * single-step (the 4.x table-driven `can_boost`, on raw bytes). Prefixes that keep an instruction
 * boostable (REX, `26 36 3e 64 65 66`, `f0 f2 f3`) are skipped and the next byte retried; `0f xx`
 * is looked up in {@link twobyteIsBoostable}; one-byte rows:
 * - `40`–`4f`: REX, retry;
 * - `60`–`6f`: `64 65 66` retry; `62` (bound/EVEX) and `67` (address size) are not boostable;
 * - `70`–`7f`: jcc rel8, never (the branch would be taken relative to the slot);
 * - `c0`–`cf`: only `c2`–`cb` (ret, enter, leave, lret...) and `cf` iret; not `cc`–`ce` (int3, int n, into);
 * - `d0`–`df`: only `d4 d5 d7` (aam, aad, xlat); the shift groups and x87 escapes are not;
 * - `e0`–`ef`: in/out (bit 2 set) and `ea`; not loop/jrcxz, call/jmp rel;
 * - `f0`–`ff`: `f0 f2 f3` retry; only `f5` cmc and `f8`–`fd` (clc..std); not `f1 f4 f6 f7 fe ff`;
 * - otherwise: `26 36 3e` retry; `2e` (CS override) and `9a` (call far) no; everything else yes.
 * An address in the exception tables is never boosted: a page fault there must be fixed up at the
 * original address.
 * @see arch/x86/kernel/kprobes/core.c can_boost() (4.x)
 */
export function canBoost(bytes: Uint8Array, inExceptionTable = false): boolean {
  if (inExceptionTable) return false;
  for (let i = 0; i < Math.min(bytes.length, MAX_INSN_SIZE); i++) {
    const op = bytes[i];
    if (op === 0x0f) return i + 1 < MAX_INSN_SIZE && i + 1 < bytes.length && twobyteIsBoostable(bytes[i + 1]);
    switch (op & 0xf0) {
      case 0x40:
        continue;
      case 0x60:
        if (op > 0x63 && op < 0x67) continue;
        return op !== 0x62 && op !== 0x67;
      case 0x70:
        return false;
      case 0xc0:
        return (op > 0xc1 && op < 0xcc) || op === 0xcf;
      case 0xd0:
        return op === 0xd4 || op === 0xd5 || op === 0xd7;
      case 0xe0:
        return (op & 0x04) !== 0 || op === 0xea;
      case 0xf0:
        if ((op & 0x0c) === 0 && op !== 0xf1) continue;
        return op === 0xf5 || (op > 0xf7 && op < 0xfe);
      default:
        if (op === 0x26 || op === 0x36 || op === 0x3e) continue;
        return op !== 0x2e && op !== 0x9a;
    }
  }
  return false;
}
