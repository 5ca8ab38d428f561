import { BlockEncoder, BlockEncoderOptions, Decoder, DecoderOptions, Instruction, OpKind } from 'iced-x86';

/** The detoured instructions re-encoded for the detour buffer. */
export interface RelocatedRegion {
  readonly ok: true;
  /** The bytes to place in the detour buffer at `toAddr`; same length and layout as the input. */
  readonly bytes: Uint8Array;
}

/** Why a region cannot be moved. */
export interface RelocationRefused {
  readonly ok: false;
  readonly reason: 'undecodable' | 'unencodable' | 'not-exact';
  /** Offset in the region of the instruction that could not be moved. */
  readonly offset: number;
  readonly message: string;
}

function isNearBranch(insn: Instruction): boolean {
  const k = insn.op0Kind;
  return k === OpKind.NearBranch16 || k === OpKind.NearBranch32 || k === OpKind.NearBranch64;
}

function refuse(reason: RelocationRefused['reason'], offset: number, message: string): RelocationRefused {
  return Object.freeze({ ok: false, reason, offset, message });
}

/** Re-encodes one RIP-relative or branching instruction at `rip` with iced's BlockEncoder. */
function encodeAt(insn: Instruction, rip: bigint): Uint8Array | string {
  const encoder = new BlockEncoder(64, BlockEncoderOptions.DontFixBranches);
  try {
    encoder.add(insn);
    return encoder.encode(rip);
  } catch (e) {
    return String(e);
  } finally {
    encoder.free();
  }
}

/**
 * Moves the detoured code region (the whole instructions in `insnsBytes`, originally at `fromAddr`)
 * to `toAddr`, keeping every instruction at the same offset with the same length. Position-
 * independent instructions are copied byte for byte; a RIP-relative operand or a relative branch is
 * re-encoded at its new address with iced's `BlockEncoder` so it keeps its absolute target — except
 * a branch into the region itself, which follows the region to its new place. Anything that cannot
 * be moved exactly is refused: a `[rip+disp32]`, rel8 or rel32 that cannot reach its target from
 * `toAddr` (iced's error is in the message), or an encoding whose length would change
 * (`DontFixBranches`: a short jump is never widened).
 * @see arch/x86/kernel/kprobes/opt.c copy_optimized_instructions(); core.c __copy_instruction()
 */
export function relocateRegion(
  insnsBytes: Uint8Array,
  fromAddr: bigint,
  toAddr: bigint,
): RelocatedRegion | RelocationRefused {
  const out = new Uint8Array(insnsBytes.length);
  const regionEnd = fromAddr + BigInt(insnsBytes.length);
  const decoder = new Decoder(64, insnsBytes, DecoderOptions.None);
  const insn = new Instruction();
  try {
    decoder.ip = fromAddr;
    let offset = 0;
    while (offset < insnsBytes.length) {
      decoder.decodeOut(insn);
      if (insn.isInvalid) return refuse('undecodable', offset, `cannot decode the instruction at offset ${offset}`);
      const length = insn.length;
      if (!insn.isIpRelMemoryOperand && !isNearBranch(insn)) {
        out.set(insnsBytes.subarray(offset, offset + length), offset);
      } else {
        if (isNearBranch(insn)) {
          const target = insn.nearBranchTarget;
          if (target >= fromAddr && target < regionEnd) insn.nearBranch64 = toAddr + (target - fromAddr);
        }
        const encoded = encodeAt(insn, toAddr + BigInt(offset));
        if (typeof encoded === 'string') return refuse('unencodable', offset, `cannot relocate: ${encoded}`);
        if (encoded.length !== length) {
          return refuse('not-exact', offset, `re-encoding changed the length from ${length} to ${encoded.length}`);
        }
        out.set(encoded, offset);
      }
      offset += length;
    }
    return Object.freeze({ ok: true, bytes: out });
  } finally {
    insn.free();
    decoder.free();
  }
}
