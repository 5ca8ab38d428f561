import type { Width } from './insn-encoding.js';

/** The architectural flags the tests compare: CF PF AF ZF SF OF DF. */
export const COMPARED_FLAGS = 0xcd5;
export const CF = 0x1;
export const PF = 0x4;
export const AF = 0x10;
export const ZF = 0x40;
export const SF = 0x80;
export const OF = 0x800;
export const ARITH = CF | PF | AF | ZF | SF | OF;

/** Register numbers, Intel encoding order. */
export const RAX = 0;
export const RCX = 1;
export const RDX = 2;
export const RBX = 3;
export const RSP = 4;
export const RBP = 5;
export const RSI = 6;
export const RDI = 7;

/**
 * Memory forms address a scratch page at the same fixed address natively and in the emulator; the
 * window (WINDOW_SIZE bytes at SCRATCH_PAGE + WINDOW_OFFSET) is loaded before and compared after.
 */
export const SCRATCH_PAGE = 0x10000000n;
export const WINDOW_OFFSET = 0x700;
export const WINDOW_SIZE = 0x200;
/** The middle of the window: where templates point their base registers. */
export const SCRATCH_MIDDLE = SCRATCH_PAGE + 0x800n;

/** The random choices one generated case is built from. */
export interface InsnChoice {
  /** ModRM.reg and ModRM.rm register numbers. */
  readonly reg: number;
  readonly rm: number;
  /** Use a REX prefix for 8-bit operands (SPL..DIL rather than AH..BH). */
  readonly rex: boolean;
  /** An immediate (templates truncate it to their size). */
  readonly imm: bigint;
  /** A shift or rotate count, 0..70 (placed in CL or the immediate by the template). */
  readonly count: number;
  /** A free random number a template may use to shape its inputs. */
  readonly pick: number;
}

/** Machine state before or after the instruction. */
export interface InsnState {
  readonly regs: readonly bigint[];
  readonly rflags: number;
  /** The scratch window (memory forms only). */
  readonly memory?: Uint8Array | undefined;
}

/** One differential case: bytes and the state to run them from. */
export interface InsnCase {
  readonly bytes: Uint8Array;
  readonly before: InsnState;
  /** Flags whose value the SDM leaves undefined for this case (not compared). */
  readonly undefinedFlags: number;
  /** Registers whose value the SDM leaves undefined for this case (not compared), as a bit mask. */
  readonly undefinedRegs: number;
}

/** What running a case produced. */
export type InsnOutcome =
  | { readonly kind: 'ok'; readonly state: InsnState }
  | { readonly kind: 'fault'; readonly vector: number };

/** An instruction form, and how to turn random choices into a case of it. */
export interface InsnTemplate {
  /** Lowercase iced-x86 mnemonic, e.g. 'shld' or 'cmovle'. */
  readonly mnemonic: string;
  /** A readable form, e.g. 'shld r/m32, r32, cl'. */
  readonly form: string;
  readonly width: Width;
  encode(c: InsnChoice): Uint8Array;
  /** Whether the form touches the scratch window (its bytes are then generated and compared). */
  readonly memory?: boolean;
  /** Adjusts the generated registers and window (e.g. puts the count in CL); mutates both. */
  prepare?: ((regs: bigint[], c: InsnChoice, memory: Uint8Array) => void) | undefined;
  /** Flags the SDM leaves undefined for these inputs. */
  undefinedFlags?(regs: readonly bigint[], c: InsnChoice): number;
  /** Registers (bit mask) the SDM leaves undefined for these inputs. */
  undefinedRegs?(regs: readonly bigint[], c: InsnChoice): number;
}
