/**
 * Two-byte opcodes (`0f xx`) whose copy may run out of line followed by a jump back, the 4.x
 * `twobyte_is_boostable` bitmap rebuilt from its row-by-row facts. Each row lists the boostable
 * second bytes and why the others are not: undefined/reserved opcodes, conditional jumps, opcode
 * extension groups (whose meaning hangs on ModRM.reg) and a few special instructions cannot be boosted.
 * @see arch/x86/kernel/kprobes/core.c twobyte_is_boostable (2.6.17 – 4.x)
 */
const ROWS: readonly { readonly row: number; readonly boostable: readonly number[]; readonly why: string }[] = [
  // 00 Grp6/Grp7 are groups; 05 syscall, 07 sysret leave the kernel; 0b ud2 traps; 0d, 0e, 0f are groups/3DNow!.
  { row: 0x00, boostable: [0x02, 0x03, 0x06, 0x08, 0x09], why: 'lar, lsl, clts, invd, wbinvd' },
  // 10 SSE moves (mandatory-prefix forms), 18 prefetch group, 1f nop group: none.
  { row: 0x10, boostable: [], why: 'SSE and hint groups' },
  // 20 mov to/from control and debug registers; 24-27 reserved; 28-2f SSE.
  { row: 0x20, boostable: [0x20, 0x21, 0x22, 0x23], why: 'mov cr/dr' },
  // 30 wrmsr, 32 rdmsr, 33 rdpmc, 34/35 sysenter/sysexit, 37 getsec, 38/3a escapes: only rdtsc.
  { row: 0x30, boostable: [0x31], why: 'rdtsc' },
  { row: 0x40, boostable: range(0x40, 0x4f), why: 'cmovcc' },
  // 50 SSE: none.
  { row: 0x50, boostable: [], why: 'SSE' },
  // 60-6b, 6e, 6f MMX; 6c/6d exist only with a 66 prefix (punpck[lh]qdq).
  { row: 0x60, boostable: [...range(0x60, 0x6b), 0x6e, 0x6f], why: 'MMX' },
  // 70-73 pshuf and shift groups 12-14; 78-7d vmread/vmwrite/reserved/SSE3: only pcmpeq, emms, movd/movq.
  { row: 0x70, boostable: [0x74, 0x75, 0x76, 0x77, 0x7e, 0x7f], why: 'pcmpeq, emms, movd/movq' },
  // 80 jcc rel32: a relative branch from the slot would land in the wrong place.
  { row: 0x80, boostable: [], why: 'jcc near' },
  { row: 0x90, boostable: range(0x90, 0x9f), why: 'setcc' },
  // a2 cpuid (serialising), a6/a7 reserved, aa rsm, ae Grp15 (fxsave, fences).
  {
    row: 0xa0,
    boostable: [0xa0, 0xa1, 0xa3, 0xa4, 0xa5, 0xa8, 0xa9, 0xab, 0xac, 0xad, 0xaf],
    why: 'push/pop fs/gs, bt, bts, shld, shrd, imul',
  },
  // b8 popcnt/jmpe, b9 ud1 (Grp10), ba Grp8.
  {
    row: 0xb0,
    boostable: [...range(0xb0, 0xb7), ...range(0xbb, 0xbf)],
    why: 'cmpxchg, lss, btr, lfs, lgs, movzx, btc, bsf, bsr, movsx',
  },
  // c2-c6 SSE forms, c7 Grp9 (cmpxchg8b/16b, rdrand).
  { row: 0xc0, boostable: [0xc0, 0xc1, ...range(0xc8, 0xcf)], why: 'xadd, bswap' },
  { row: 0xd0, boostable: [0xd1, 0xd2, 0xd3, 0xd5, 0xd8, 0xd9, 0xdb, 0xdc, 0xdd, 0xdf], why: 'MMX (no SSE-only rows)' },
  { row: 0xe0, boostable: [0xe1, 0xe2, 0xe5, 0xe8, 0xe9, 0xeb, 0xec, 0xed, 0xef], why: 'MMX (no SSE-only rows)' },
  {
    row: 0xf0,
    boostable: [0xf1, 0xf2, 0xf3, 0xf5, 0xf8, 0xf9, 0xfa, 0xfc, 0xfd, 0xfe],
    why: 'MMX (ud0 at ff excluded)',
  },
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

const TABLE = new Uint8Array(256);
for (const { boostable } of ROWS) for (const op of boostable) TABLE[op] = 1;

/**
 * Whether the two-byte opcode `0f second` is boostable.
 * @see arch/x86/kernel/kprobes/core.c twobyte_is_boostable, can_boost()
 */
export function twobyteIsBoostable(second: number): boolean {
  return TABLE[second & 0xff] === 1;
}
