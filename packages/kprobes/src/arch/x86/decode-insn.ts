import {
  Decoder,
  DecoderOptions,
  EncodingKind,
  FlowControl,
  Formatter,
  FormatterSyntax,
  Instruction,
  OpKind,
} from 'iced-x86';
import { skipPrefixes } from './skip-prefixes.js';
import { MAX_INSN_SIZE } from './x86-constants.js';

/** How an instruction changes the flow of control, after iced's `FlowControl`. */
export type InsnFlow =
  | 'next'
  | 'jump'
  | 'indirect-jump'
  | 'conditional-jump'
  | 'return'
  | 'call'
  | 'indirect-call'
  | 'interrupt'
  | 'xbegin-xabort-xend'
  | 'exception';

const FLOW: Record<FlowControl, InsnFlow> = {
  [FlowControl.Next]: 'next',
  [FlowControl.UnconditionalBranch]: 'jump',
  [FlowControl.IndirectBranch]: 'indirect-jump',
  [FlowControl.ConditionalBranch]: 'conditional-jump',
  [FlowControl.Return]: 'return',
  [FlowControl.Call]: 'call',
  [FlowControl.IndirectCall]: 'indirect-call',
  [FlowControl.Interrupt]: 'interrupt',
  [FlowControl.XbeginXabortXend]: 'xbegin-xabort-xend',
  [FlowControl.Exception]: 'exception',
};

/**
 * A plain, frozen description of one decoded instruction: what the kernel's `struct insn` holds after
 * `insn_get_length()`, plus iced's flow-control kind and objdump-style text.
 * @see arch/x86/include/asm/insn.h struct insn
 */
export interface DecodedInsn {
  /** Where the instruction was decoded. */
  readonly address: bigint;
  /** The instruction's bytes (`length` of them; for an invalid instruction, what iced consumed). */
  readonly bytes: readonly number[];
  /** Length in bytes; at least 1, even for undecodable bytes. */
  readonly length: number;
  /** True when iced could not decode the bytes (reserved opcode, or the buffer ended too early). */
  readonly invalid: boolean;
  /** Offset of the opcode after the legacy prefixes and one REX (`skip_prefixes`), or of a VEX/EVEX/XOP prefix's opcode. */
  readonly opcodeOffset: number;
  /** The REX byte, or 0. */
  readonly rex: number;
  /** Opcode bytes (`0f`, `0f 38` and `0f 3a` escapes included; the one byte after a VEX/EVEX/XOP prefix). */
  readonly opcode: readonly number[];
  /** The ModRM byte, or undefined when the instruction has none. */
  readonly modrm: number | undefined;
  /** True for a `[rip+disp32]` (or `[eip+disp32]`) memory operand: ModRM `mod=00, rm=101`. */
  readonly ripRelative: boolean;
  /** Offset of the displacement in `bytes` (iced `ConstantOffsets`), or -1 when there is none. */
  readonly dispOffset: number;
  /** Size of the displacement in bytes, or 0. */
  readonly dispSize: number;
  /** Offset of the first immediate (rel8/rel32 of a branch included), or -1. */
  readonly immOffset: number;
  /** Size of the first immediate in bytes, or 0. */
  readonly immSize: number;
  /** Target of a near relative branch (jmp, jcc, call, loop/loopcc, jrcxz, xbegin), else undefined. */
  readonly nearBranchTarget: bigint | undefined;
  /** Flow-control kind. */
  readonly flow: InsnFlow;
  /** GNU mnemonic, e.g. `call`; `(bad)` when invalid. */
  readonly mnemonic: string;
  /** GNU/AT&T text as objdump prints it, e.g. `call *%rax`; `(bad)` when invalid. */
  readonly text: string;
}

let formatter: Formatter | undefined;

function gas(): Formatter {
  if (formatter === undefined) {
    formatter = new Formatter(FormatterSyntax.Gas);
    formatter.uppercaseHex = false;
    formatter.hexPrefix = '0x';
    formatter.hexSuffix = '';
    // objdump prints `0x10(%rip)` and leaves the absolute address to a comment.
    formatter.ripRelativeAddresses = true;
  }
  return formatter;
}

/** Bytes a VEX/EVEX/XOP prefix occupies before its opcode byte. */
function vexPrefixLength(encoding: EncodingKind, first: number): number {
  if (encoding === EncodingKind.EVEX || encoding === EncodingKind.MVEX) return 4;
  if (encoding === EncodingKind.VEX) return first === 0xc5 ? 2 : 3;
  if (encoding === EncodingKind.XOP) return 3;
  return 0;
}

function opcodeBytes(bytes: Uint8Array, at: number, vex: boolean): number[] {
  if (at >= bytes.length) return [];
  if (vex || bytes[at] !== 0x0f) return [bytes[at]];
  const second = bytes[at + 1];
  if (second === undefined) return [0x0f];
  if ((second === 0x38 || second === 0x3a) && at + 2 < bytes.length) return [0x0f, second, bytes[at + 2]];
  return [0x0f, second];
}

/**
 * iced-x86's JavaScript formatter prints some 64-bit immediates as `$0` (2^63, 2^53, …: it loses them
 * on the way through a double) although the decoded value is right. Put the value from the
 * instruction's own bytes back.
 */
function fixImm64(text: string, raw: Uint8Array, immOffset: number, immSize: number): string {
  if (immSize !== 8) return text;
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(raw[immOffset + i]);
  return text.replace(/\$(?:-?0x[0-9a-f]+|-?\d+)/, `$0x${v.toString(16)}`);
}

/**
 * Decodes the instruction at the start of `bytes` (placed at `address`) with iced-x86 in 64-bit mode
 * and describes it the way the kernel decoder does: length, the opcode offset after legacy prefixes
 * and one REX (`skip_prefixes`), opcode and ModRM bytes, RIP-relative displacement and its offset,
 * near-branch target. Frees every wasm object it makes.
 * @see arch/x86/lib/insn.c insn_get_length(); Intel SDM Vol. 2A §2.1 (instruction format)
 * @example
 * decodeInsn(Uint8Array.of(0xff, 0xd0), 0xffffffff81000000n).text; // 'call *%rax'
 */
export function decodeInsn(bytes: Uint8Array, address: bigint): DecodedInsn {
  const window = bytes.subarray(0, Math.min(bytes.length, MAX_INSN_SIZE));
  const decoder = new Decoder(64, window, DecoderOptions.None);
  const insn = new Instruction();
  try {
    decoder.ip = address;
    decoder.decodeOut(insn);
    const invalid = insn.isInvalid;
    const length = Math.max(1, Math.min(insn.length, window.length));
    const raw = window.subarray(0, length);
    if (invalid) return invalidInsn(address, raw);
    const offsets = decoder.getConstantOffsets(insn);
    const dispOffset = offsets.hasDisplacement ? offsets.displacementOffset : -1;
    const dispSize = offsets.hasDisplacement ? offsets.displacementSize : 0;
    const immOffset = offsets.hasImmediate ? offsets.immediateOffset : -1;
    const immSize = offsets.hasImmediate ? offsets.immediateSize : 0;
    offsets.free();

    const legacyEnd = skipPrefixes(raw);
    const rex = legacyEnd > 0 && (raw[legacyEnd - 1] & 0xf0) === 0x40 ? raw[legacyEnd - 1] : 0;
    const vexLength = vexPrefixLength(insn.encoding, raw[legacyEnd]);
    const opcodeOffset = legacyEnd + vexLength;
    const opcode = opcodeBytes(raw, opcodeOffset, vexLength > 0);
    // Whatever lies between the opcode and the first constant (or the end) is ModRM, then SIB.
    const opcodeEnd = opcodeOffset + opcode.length;
    const constants = [dispOffset, immOffset].filter((o) => o >= 0);
    const firstConstant = constants.length > 0 ? Math.min(...constants) : length;
    const modrm = firstConstant > opcodeEnd ? raw[opcodeEnd] : undefined;
    const op0 = insn.op0Kind;
    const nearBranch = op0 === OpKind.NearBranch16 || op0 === OpKind.NearBranch32 || op0 === OpKind.NearBranch64;
    return Object.freeze({
      address,
      bytes: Object.freeze(Array.from(raw)),
      length,
      invalid: false,
      opcodeOffset,
      rex,
      opcode: Object.freeze(opcode),
      modrm,
      ripRelative: insn.isIpRelMemoryOperand,
      dispOffset,
      dispSize,
      immOffset,
      immSize,
      nearBranchTarget: nearBranch ? insn.nearBranchTarget : undefined,
      flow: FLOW[insn.flowControl],
      mnemonic: gas().formatMnemonic(insn),
      text: fixImm64(gas().format(insn), raw, immOffset, immSize),
    });
  } finally {
    insn.free();
    decoder.free();
  }
}

function invalidInsn(address: bigint, raw: Uint8Array): DecodedInsn {
  const opcodeOffset = Math.min(skipPrefixes(raw), Math.max(0, raw.length - 1));
  return Object.freeze({
    address,
    bytes: Object.freeze(Array.from(raw)),
    length: raw.length,
    invalid: true,
    opcodeOffset,
    rex: 0,
    opcode: Object.freeze(raw.length > 0 ? [raw[opcodeOffset]] : []),
    modrm: undefined,
    ripRelative: false,
    dispOffset: -1,
    dispSize: 0,
    immOffset: -1,
    immSize: 0,
    nearBranchTarget: undefined,
    flow: 'exception' as const,
    mnemonic: '(bad)',
    text: '(bad)',
  });
}
