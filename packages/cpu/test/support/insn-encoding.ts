/** Operand width of an integer instruction. */
export type Width = 8 | 16 | 32 | 64;

/** A register-form instruction to encode: prefixes, REX, opcode, ModRM with mod=11, immediate. */
export interface RegForm {
  readonly width: Width;
  /** Opcode bytes after the prefixes and REX (e.g. [0x0f, 0xaf]). */
  readonly opcode: readonly number[];
  /** ModRM.reg: a register number, or the opcode extension (/digit). */
  readonly reg: number;
  /** ModRM.rm: a register number. */
  readonly rm: number;
  /** Immediate bytes, little-endian, of this many bytes. */
  readonly imm?: { readonly size: 1 | 2 | 4; readonly value: bigint };
  /** A mandatory prefix such as 0xf3 (tzcnt), emitted before 66 and REX. */
  readonly mandatory?: number;
  /** Emit a REX byte even when it would be 0x40 (selects SPL..DIL instead of AH..BH). */
  readonly forceRex?: boolean;
  /** Suppress REX.W even at width 64 (instructions whose width the opcode fixes). */
  readonly noRexW?: boolean;
}

/**
 * Encodes a register-only instruction. Deliberately tiny (the tests check every encoding against
 * iced-x86's decoder, so a mistake here shows up as a test failure, not as a silent wrong case).
 * @see Intel SDM Vol. 2A §2.1 (instruction format) and §2.2.1 (REX prefixes)
 */
export function encodeRegForm(f: RegForm): Uint8Array {
  const bytes: number[] = [];
  if (f.mandatory !== undefined && f.width === 16) bytes.push(0x66, f.mandatory);
  else if (f.mandatory !== undefined) bytes.push(f.mandatory);
  else if (f.width === 16) bytes.push(0x66);
  const w = f.width === 64 && !f.noRexW ? 8 : 0;
  const rex = 0x40 | w | (((f.reg >> 3) & 1) << 2) | ((f.rm >> 3) & 1);
  if (rex !== 0x40 || f.forceRex) bytes.push(rex);
  bytes.push(...f.opcode, 0xc0 | ((f.reg & 7) << 3) | (f.rm & 7));
  if (f.imm) {
    const v = BigInt.asUintN(8 * f.imm.size, f.imm.value);
    for (let i = 0; i < f.imm.size; i++) bytes.push(Number((v >> BigInt(8 * i)) & 0xffn));
  }
  return Uint8Array.from(bytes);
}

/** The hex string of some bytes. */
export function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** A memory-form instruction: ModRM mod=01 (disp8) with a base, and optionally a SIB index. */
export interface MemForm {
  readonly width: Width;
  readonly opcode: readonly number[];
  /** ModRM.reg: a register number or the opcode extension. */
  readonly reg: number;
  readonly base: number;
  readonly index?: number | undefined;
  readonly scale?: 0 | 1 | 2 | 3 | undefined;
  readonly disp: number;
  readonly imm?: { readonly size: 1 | 2 | 4; readonly value: bigint };
  /** Prefixes emitted first (lock 0xf0, rep 0xf3...). */
  readonly prefixes?: readonly number[];
  readonly forceRex?: boolean;
  readonly noRexW?: boolean;
}

/**
 * Encodes `op [base + index*2^scale + disp8]`; a SIB byte is used when there is an index or the base
 * is RSP/R12 (whose rm encoding means "SIB follows").
 * @see Intel SDM Vol. 2A §2.1.5 (ModR/M and SIB addressing forms)
 */
export function encodeMemForm(f: MemForm): Uint8Array {
  const bytes: number[] = [...(f.prefixes ?? [])];
  if (f.width === 16) bytes.push(0x66);
  const w = f.width === 64 && !f.noRexW ? 8 : 0;
  const x = f.index !== undefined ? (f.index >> 3) & 1 : 0;
  const rex = 0x40 | w | (((f.reg >> 3) & 1) << 2) | (x << 1) | ((f.base >> 3) & 1);
  if (rex !== 0x40 || f.forceRex) bytes.push(rex);
  bytes.push(...f.opcode);
  const sib = f.index !== undefined || (f.base & 7) === 4;
  bytes.push(0x40 | ((f.reg & 7) << 3) | (sib ? 4 : f.base & 7));
  if (sib) bytes.push(((f.scale ?? 0) << 6) | (((f.index ?? 4) & 7) << 3) | (f.base & 7));
  bytes.push(f.disp & 0xff);
  if (f.imm) {
    const v = BigInt.asUintN(8 * f.imm.size, f.imm.value);
    for (let i = 0; i < f.imm.size; i++) bytes.push(Number((v >> BigInt(8 * i)) & 0xffn));
  }
  return Uint8Array.from(bytes);
}
