/**
 * One decoded instruction in the interpreter's compact form: a small-int op code plus pre-resolved
 * operands. Every field is always present (a monomorphic shape V8 keeps in one hidden class).
 * Register operands are 0..15 (Intel order) or 16..19 for AH, CH, DH, BH.
 * @see Intel SDM Vol. 2A §2.1 (instruction format)
 */
export class Insn {
  /** Op code from {@link Op}. */
  op = 0;
  /** Length in bytes. */
  len = 0;
  /** Virtual cost: 0 for instrumentation bytes, 1 otherwise. */
  cost = 1;
  /** Operand size in bytes (1, 2, 4, 8). */
  size = 8;
  /** Secondary size (source size of movzx/movsx, address size of string ops). */
  size2 = 8;
  /** Destination kind (OperandKind). */
  dk = 0;
  /** Destination register. */
  dr = 0;
  /** Source kind (OperandKind). */
  sk = 0;
  /** Source register. */
  sr = 0;
  /** Third operand register (shld/shrd count source), or -1. */
  r3 = -1;
  /** Immediate, low and high 32 bits (already sign-extended to 64 bits, masked to size when < 4). */
  il = 0;
  ih = 0;
  /** Second immediate (shift count of shld/shrd, enter). */
  i2 = 0;
  /** Memory base register, -1 none. */
  mb = -1;
  /** Memory index register, -1 none. */
  mi = -1;
  /** Index scale (1, 2, 4, 8). */
  ms = 1;
  /** Displacement (absolute target for RIP-relative), low and high 32 bits. */
  ml = 0;
  mh = 0;
  /** Segment override: 0 none, 1 FS, 2 GS. */
  seg = 0;
  /** 1 when the address size is 32 bits (0x67 prefix). */
  a32 = 0;
  /** Memory form, pre-resolved for the effective-address fast path ({@link MemoryForm}). */
  mf = 0;
  /** Condition code (Intel tttn encoding) for jcc/setcc/cmovcc, or the rep kind for string ops. */
  cc = 0;
  /** Branch target, low and high 32 bits. */
  tl = 0;
  th = 0;
  /** Address of the next instruction, low and high 32 bits. */
  nl = 0;
  nh = 0;
  /**
   * A gate's binding on the host, cached there by the CPU's gate hook (so a gate reached again needs
   * no lookup); it goes with the rest of the decoded code when the bytes change.
   */
  gate: unknown = null;
  /** Instruction bytes as hex and the formatted mnemonic, kept only for #UD reporting. */
  bytes = '';
  mnemonic = '';
}

/**
 * Shapes of a memory operand ({@link Insn.mf}), so the effective address needs no per-field tests:
 * a displacement only (absolute or RIP-relative), base + disp, base + index * scale + disp,
 * index * scale + disp, or anything with an FS/GS override or a 32-bit address size.
 */
export const MemoryForm = { Disp: 0, Base: 1, BaseIndex: 2, Index: 3, General: 4 } as const;

/** Operand kinds of {@link Insn.dk} / {@link Insn.sk}. */
export const OperandKind = { None: 0, Reg: 1, Mem: 2, Imm: 3 } as const;
