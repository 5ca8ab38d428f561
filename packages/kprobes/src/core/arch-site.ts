/** The architecture's part of a probe (`struct arch_specific_insn` + `opcode`), opaque to the core. */
export interface ArchSite {
  /** The instruction slot holding the copied instruction. */
  readonly slot: bigint;
  /** `p->opcode`: the original first byte, restored on disarm. */
  readonly opcode: number;
  /** The original instruction, formatted (for events and `disasm`). */
  readonly text: string;
}
