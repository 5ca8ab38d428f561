/**
 * Random straight-line x86-64 programs for the block compiler's differential fuzz: instructions of
 * every family the compiler takes (inline or through an executor) and some it does not, register and
 * memory forms, flag writers followed by flag readers, short forward branches, a call, loads through
 * random pointers (faults), all inside a loop that runs a few times so the compiled code runs.
 */
import fc from 'fast-check';
import { encodeMemForm, encodeRegForm, type Width } from './insn-encoding.js';

/** Registers random instructions may write (not RBX: the window base; not RSP, not R15: the loop). */
export const SCRATCH = [0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] as const;
/** The loop counter. */
export const LOOP_REG = 15;
/** RBX points here: the middle of the data window. */
export const WINDOW_BASE_REG = 3;

const WIDTHS: readonly Width[] = [8, 16, 32, 64];

/** One random choice of the generator, turned into bytes by {@link encodePiece}. */
export interface Piece {
  readonly kind: number;
  readonly width: number;
  readonly a: number;
  readonly b: number;
  readonly imm: bigint;
  readonly disp: number;
  readonly sub: number;
}

export const pieceArbitrary: fc.Arbitrary<Piece> = fc.record({
  // Flag writers and readers are drawn most often, so readers meet every kind of writer.
  kind: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 6 }), weight: 6 },
    { arbitrary: fc.constantFrom(14, 17, 19, 20, 21, 30), weight: 4 },
    { arbitrary: fc.integer({ min: 0, max: 33 }), weight: 5 },
    { arbitrary: fc.constant(34), weight: 16 },
    { arbitrary: fc.constant(35), weight: 2 },
  ),
  width: fc.integer({ min: 0, max: 3 }),
  a: fc.integer({ min: 0, max: SCRATCH.length - 1 }),
  b: fc.integer({ min: 0, max: 15 }),
  imm: fc.oneof(
    fc.bigInt({ min: -130n, max: 130n }),
    fc.bigInt({ min: -(1n << 31n), max: (1n << 31n) - 1n }),
    fc.constantFrom(0n, 1n, -1n, 0x7fn, 0x80n, 0x7fffn, 0x8000n, 0x7fffffffn, -0x80000000n, 31n, 32n, 63n),
  ),
  disp: fc.integer({ min: -96, max: 88 }),
  sub: fc.integer({ min: 0, max: 15 }),
});

const ALU_OPS = 8;

/** Destination register for a width: 8-bit forms without REX use AL..DH, never BH (RBX's byte). */
function dest(p: Piece, width: Width): { reg: number; rex: boolean } {
  const r = SCRATCH[p.a];
  if (width === 8 && r < 8) {
    // Without REX, 4..7 are AH CH DH BH: keep AH..DH (4, 5, 6) and never BH.
    const legacy = [0, 1, 2, 4, 5, 6][p.a % 6];
    return p.sub & 1 ? { reg: r, rex: true } : { reg: legacy, rex: false };
  }
  return { reg: r, rex: width === 8 };
}

function imm(width: Width, v: bigint): { size: 1 | 2 | 4; value: bigint } {
  return { size: width === 8 ? 1 : width === 16 ? 2 : 4, value: v };
}

function memOp(
  p: Piece,
  width: Width,
  opcode: number[],
  reg: number,
  extra: { imm?: { size: 1 | 2 | 4; value: bigint }; forceRex?: boolean; prefixes?: number[] } = {},
): Uint8Array {
  return encodeMemForm({ width, opcode, reg, base: WINDOW_BASE_REG, disp: p.disp, ...extra });
}

/** The bytes of one piece (one instruction, or a short pattern such as jcc over the next one). */
export function encodePiece(p: Piece, next: Uint8Array | null): Uint8Array {
  const width = WIDTHS[p.width];
  const w8 = width === 8;
  const d = dest(p, width);
  // An 8-bit destination without REX (AL..DH) needs a source that adds no REX either.
  const src = w8 && !d.rex ? p.b & 7 : p.b;
  const rexSrc = d.rex;
  const op = p.sub % ALU_OPS;
  switch (p.kind) {
    case 0: // alu r/m, r
      return encodeRegForm({ width, opcode: [op * 8 + (w8 ? 0 : 1)], reg: src, rm: d.reg, forceRex: rexSrc });
    case 1: // alu r/m, imm
      return encodeRegForm({
        width,
        opcode: [w8 ? 0x80 : 0x81],
        reg: op,
        rm: d.reg,
        forceRex: d.rex,
        imm: imm(width, p.imm),
      });
    case 2: // alu r/m, imm8 sign-extended
      return encodeRegForm({
        width: w8 ? 32 : width,
        opcode: [0x83],
        reg: op,
        rm: d.reg,
        imm: { size: 1, value: p.imm },
      });
    case 3: // alu [mem], r / alu r, [mem]
      return p.sub & 8
        ? memOp(p, width, [op * 8 + (w8 ? 2 : 3)], d.reg, { forceRex: d.rex })
        : memOp(p, width, [op * 8 + (w8 ? 0 : 1)], d.reg, { forceRex: d.rex });
    case 4: // alu [mem], imm
      return memOp(p, width, [w8 ? 0x80 : 0x81], op, { imm: imm(width, p.imm) });
    case 5: // test r/m, r ; test r/m, imm
      return p.sub & 1
        ? encodeRegForm({ width, opcode: [w8 ? 0x84 : 0x85], reg: src, rm: d.reg, forceRex: rexSrc })
        : encodeRegForm({
            width,
            opcode: [w8 ? 0xf6 : 0xf7],
            reg: 0,
            rm: d.reg,
            forceRex: d.rex,
            imm: imm(width, p.imm),
          });
    case 6: // inc/dec/not/neg r
      return p.sub & 8
        ? encodeRegForm({ width, opcode: [w8 ? 0xfe : 0xff], reg: p.sub & 1, rm: d.reg, forceRex: d.rex })
        : encodeRegForm({ width, opcode: [w8 ? 0xf6 : 0xf7], reg: 2 + (p.sub & 1), rm: d.reg, forceRex: d.rex });
    case 7: // inc/dec/not/neg [mem]
      return p.sub & 8
        ? memOp(p, width, [w8 ? 0xfe : 0xff], p.sub & 1)
        : memOp(p, width, [w8 ? 0xf6 : 0xf7], 2 + (p.sub & 1));
    case 8: // mov r/m, r
      return encodeRegForm({ width, opcode: [w8 ? 0x88 : 0x89], reg: src, rm: d.reg, forceRex: rexSrc });
    case 9: // mov r/m, imm
      return encodeRegForm({
        width,
        opcode: [w8 ? 0xc6 : 0xc7],
        reg: 0,
        rm: d.reg,
        forceRex: d.rex,
        imm: imm(width, p.imm),
      });
    case 10: // mov r, [mem] ; mov [mem], r
      return memOp(p, width, [(w8 ? 0x88 : 0x89) + (p.sub & 2)], d.reg, { forceRex: d.rex });
    case 11: // movzx/movsx r, r/m8|16 ; movsxd
      if ((p.sub & 3) === 3) return encodeRegForm({ width: 64, opcode: [0x63], reg: SCRATCH[p.a], rm: src });
      return encodeRegForm({
        width: w8 ? 32 : width,
        opcode: [0x0f, [0xb6, 0xb7, 0xbe, 0xbf][p.sub & 3]],
        reg: SCRATCH[p.a],
        rm: src,
        forceRex: (p.sub & 4) !== 0,
      });
    case 12: // movzx/movsx r, [mem]
      return memOp(p, w8 ? 32 : width, [0x0f, [0xb6, 0xb7, 0xbe, 0xbf][p.sub & 3]], SCRATCH[p.a]);
    case 13: // lea
      return encodeMemForm({
        width: w8 ? 32 : width,
        opcode: [0x8d],
        reg: SCRATCH[p.a],
        base: p.sub & 4 ? src : WINDOW_BASE_REG,
        index: p.sub & 1 ? SCRATCH[(p.a + 3) % SCRATCH.length] : undefined,
        scale: ((p.sub >> 1) & 3) as 0 | 1 | 2 | 3,
        disp: p.disp,
      });
    case 14: // shl/shr/sar r, imm (the inline form), and rotates / other counts
      return encodeRegForm({
        width,
        opcode: [w8 ? 0xc0 : 0xc1],
        reg: [4, 5, 7, 4, 5, 7, 0, 1, 2, 3][p.sub % 10],
        rm: d.reg,
        forceRex: d.rex,
        imm: { size: 1, value: p.imm & 0x7fn },
      });
    case 15: // shifts by cl, by 1
      return encodeRegForm({
        width,
        opcode: [p.sub & 8 ? (w8 ? 0xd2 : 0xd3) : w8 ? 0xd0 : 0xd1],
        reg: p.sub & 7,
        rm: d.reg,
        forceRex: d.rex,
      });
    case 16: // shift [mem]
      return memOp(p, width, [w8 ? 0xc0 : 0xc1], [4, 5, 7, 0][p.sub & 3], { imm: { size: 1, value: p.imm & 0x3fn } });
    case 17: // imul r, r/m ; imul r, r/m, imm8
      return p.sub & 1
        ? encodeRegForm({ width: w8 ? 64 : width, opcode: [0x0f, 0xaf], reg: SCRATCH[p.a], rm: src })
        : encodeRegForm({
            width: w8 ? 32 : width,
            opcode: [0x6b],
            reg: SCRATCH[p.a],
            rm: src,
            imm: { size: 1, value: p.imm },
          });
    case 18: // imul r, [mem] ; mul/imul/div r (div may raise #DE)
      if (p.sub & 1) return memOp(p, w8 ? 64 : width, [0x0f, 0xaf], SCRATCH[p.a]);
      return encodeRegForm({
        width,
        opcode: [w8 ? 0xf6 : 0xf7],
        reg: 4 + ((p.sub >> 1) & 3),
        rm: d.reg,
        forceRex: d.rex,
      });
    case 19: // setcc r8 / [mem]
      return p.sub & 1
        ? memOp(p, 8, [0x0f, 0x90 + (p.b & 15)], 0)
        : encodeRegForm({ width: 8, opcode: [0x0f, 0x90 + (p.b & 15)], reg: 0, rm: d.reg, forceRex: d.rex });
    case 20: // cmovcc r, r / [mem]
      return p.sub & 1
        ? memOp(p, w8 ? 64 : width, [0x0f, 0x40 + (p.b & 15)], SCRATCH[p.a])
        : encodeRegForm({
            width: w8 ? 32 : width,
            opcode: [0x0f, 0x40 + (p.b & 15)],
            reg: SCRATCH[p.a],
            rm: p.sub >> 1,
          });
    case 21: // jcc over the next piece (or a backward-free skip of nothing)
      return Uint8Array.of(0x70 + (p.b & 15), next === null ? 0 : next.length);
    case 22: // xchg / xadd / cmpxchg r/m, r
      return encodeRegForm({
        width,
        opcode: [[w8 ? 0x86 : 0x87], [0x0f, w8 ? 0xc0 : 0xc1], [0x0f, w8 ? 0xb0 : 0xb1]][p.sub % 3],
        reg: SCRATCH[(p.a + 1) % SCRATCH.length],
        rm: d.reg,
        forceRex: d.rex,
      });
    case 23: // xadd / cmpxchg [mem], r
      return memOp(p, width, [0x0f, (p.sub & 1 ? 0xc0 : 0xb0) + (w8 ? 0 : 1)], d.reg, { forceRex: d.rex });
    case 24: // bsf/bsr/bt/bswap
      if ((p.sub & 3) === 3) {
        const r = [0, 1, 2, 5, 6, 7][p.a % 6];
        return Uint8Array.from([...(width === 64 ? [0x48] : []), 0x0f, 0xc8 + r]);
      }
      return encodeRegForm({
        width: w8 ? 32 : width,
        opcode: [0x0f, [0xbc, 0xbd, 0xa3][p.sub & 3]],
        reg: SCRATCH[p.a],
        rm: src,
      });
    case 25: // cbw family, cwd family
      return Uint8Array.from([...(p.width === 1 ? [0x66] : p.width === 3 ? [0x48] : []), p.sub & 1 ? 0x99 : 0x98]);
    case 26: // clc stc cmc lahf sahf cld std
      return Uint8Array.of([0xf8, 0xf9, 0xf5, 0x9f, 0x9e, 0xfc, 0xfd, 0xf8][p.sub & 7]);
    case 27: // push r / pop r
      return p.sub & 1
        ? Uint8Array.from([...(src >= 8 ? [0x41] : []), 0x50 + (src & 7)])
        : Uint8Array.from([...(SCRATCH[p.a] >= 8 ? [0x41] : []), 0x58 + (SCRATCH[p.a] & 7)]);
    case 28: // call the next instruction, then pop the return address
      return Uint8Array.from([0xe8, 0, 0, 0, 0, ...(SCRATCH[p.a] >= 8 ? [0x41] : []), 0x58 + (SCRATCH[p.a] & 7)]);
    case 29: // a load or store through a random register (a #PF or #GP mid-block)
      return encodeMemForm({ width, opcode: [w8 ? 0x8a : 0x8b], reg: SCRATCH[p.a], base: src, disp: p.disp });
    case 30: // adc/sbb after a writer, on memory
      return memOp(p, width, [(p.sub & 1 ? 0x18 : 0x10) + (w8 ? 0 : 1)], d.reg, { forceRex: d.rex });
    case 31: // pushf / stos / lods (executors), rep movsb over the window
      return [
        Uint8Array.of(0x9c, 0x58 + (p.a & 1)),
        Uint8Array.of(0xaa),
        Uint8Array.of(0xac),
        Uint8Array.of(0x48, 0xab),
      ][p.sub & 3];
    case 32: // an instruction the compiler leaves to the interpreter (cpuid clobbers eax..edx)
      return p.sub & 1 ? Uint8Array.of(0x0f, 0xa2) : Uint8Array.of(0x0f, 0x31);
    case 33: // nop, and the long nop gcc aligns loops with
      return p.sub & 1 ? Uint8Array.of(0x90) : Uint8Array.of(0x0f, 0x1f, 0x44, 0x00, 0x00);
    case 35: {
      // call f; jmp over; f: <an ALU op>; ret; over: — a ret back into the same region.
      const inner = encodePiece({ ...p, kind: p.sub & 1 ? 0 : 3 }, null);
      return Uint8Array.from([0xe8, 2, 0, 0, 0, 0xeb, inner.length + 1, ...inner, 0xc3]);
    }
    default: {
      // A flag writer right before a reader of a random condition (every writer kind meets every
      // reader: the compiler computes such reads from the writer's operands).
      // A quarter of the writers compare a register with itself (equal operands).
      const b = (p.sub & 12) === 12 ? SCRATCH[p.a] : p.b;
      const writer = { ...p, b, kind: [0, 1, 2, 6, 14, 17, 3, 0][Math.abs(p.disp) & 7] };
      const cc = Number(BigInt.asUintN(8, p.imm) & 15n);
      const reader = { ...p, kind: [19, 20, 21, 30][(Math.abs(p.disp) >> 3) & 3], b: cc, sub: p.sub >> 1 };
      const r = encodePiece(reader, next);
      return Uint8Array.from([...encodePiece(writer, r), ...r]);
    }
  }
}

/**
 * A program: `loop: <pieces>; dec r15; jnz loop; hlt`, as bytes. Each jcc piece skips the piece
 * after it.
 */
export function encodeProgram(pieces: readonly Piece[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (let k = pieces.length - 1; k >= 0; k--) parts.unshift(encodePiece(pieces[k], parts[0] ?? null));
  const body = parts.flatMap((p) => [...p]);
  // dec r15 (49 ff cf); jnz rel32 back to the start
  const tail = [0x49, 0xff, 0xcf];
  const rel = -(body.length + tail.length + 6);
  const jnz = [0x0f, 0x85, rel & 0xff, (rel >> 8) & 0xff, (rel >> 16) & 0xff, (rel >> 24) & 0xff];
  return Uint8Array.from([...body, ...tail, ...jnz, 0xf4]);
}
