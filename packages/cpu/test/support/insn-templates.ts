/**
 * Instruction forms for the native differential tests, grouped by family, each with the flags (and
 * registers) the SDM leaves undefined for a given input — count-aware for shifts and rotates, which a
 * per-mnemonic table cannot be.
 * @see Intel SDM Vol. 2 ("Flags Affected" of each instruction) and Vol. 1 Appendix A
 */
import { AF, ARITH, CF, type InsnChoice, type InsnTemplate, OF, PF, RAX, RCX, RDX, SF, ZF } from './insn-case.js';
import { encodeRegForm, type Width } from './insn-encoding.js';

const WIDTHS: readonly Width[] = [8, 16, 32, 64];
const SUFFIX: Record<Width, string> = { 8: '8', 16: '16', 32: '32', 64: '64' };
const mask64 = (v: bigint) => BigInt.asUintN(64, v);

/** Opcode for the width: byte forms use `op8`, the others `op8 + 1` unless given. */
function opFor(width: Width, op8: number, opOther = op8 + 1): number {
  return width === 8 ? op8 : opOther;
}

function immSize(width: Width): 1 | 2 | 4 {
  return width === 8 ? 1 : width === 16 ? 2 : 4;
}

/** The eight classic binary ALU operations, by their /digit (and opcode = digit * 8). */
const ALU = ['add', 'or', 'adc', 'sbb', 'and', 'sub', 'xor', 'cmp'] as const;
const LOGIC_UNDEFINED = AF;

export function aluTemplates(): InsnTemplate[] {
  const out: InsnTemplate[] = [];
  ALU.forEach((mnemonic, digit) => {
    const undefinedFlags = () => (mnemonic === 'and' || mnemonic === 'or' || mnemonic === 'xor' ? LOGIC_UNDEFINED : 0);
    for (const width of WIDTHS) {
      const w = SUFFIX[width];
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}, r${w}`,
        width,
        encode: (c) =>
          encodeRegForm({ width, opcode: [opFor(width, digit * 8)], reg: c.reg, rm: c.rm, forceRex: c.rex }),
        undefinedFlags,
      });
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}, imm${width === 8 ? 8 : width === 16 ? 16 : 32}`,
        width,
        encode: (c) =>
          encodeRegForm({
            width,
            opcode: [opFor(width, 0x80, 0x81)],
            reg: digit,
            rm: c.rm,
            forceRex: c.rex,
            imm: { size: immSize(width), value: c.imm },
          }),
        undefinedFlags,
      });
      if (width !== 8) {
        out.push({
          mnemonic,
          form: `${mnemonic} r/m${w}, imm8 (sign-extended)`,
          width,
          encode: (c) => encodeRegForm({ width, opcode: [0x83], reg: digit, rm: c.rm, imm: { size: 1, value: c.imm } }),
          undefinedFlags,
        });
      }
    }
  });
  for (const width of WIDTHS) {
    const w = SUFFIX[width];
    out.push({
      mnemonic: 'test',
      form: `test r/m${w}, r${w}`,
      width,
      encode: (c) => encodeRegForm({ width, opcode: [opFor(width, 0x84)], reg: c.reg, rm: c.rm, forceRex: c.rex }),
      undefinedFlags: () => AF,
    });
    out.push({
      mnemonic: 'test',
      form: `test r/m${w}, imm`,
      width,
      encode: (c) =>
        encodeRegForm({
          width,
          opcode: [opFor(width, 0xf6)],
          reg: 0,
          rm: c.rm,
          forceRex: c.rex,
          imm: { size: immSize(width), value: c.imm },
        }),
      undefinedFlags: () => AF,
    });
    for (const [mnemonic, op, digit] of [
      ['not', 0xf6, 2],
      ['neg', 0xf6, 3],
      ['inc', 0xfe, 0],
      ['dec', 0xfe, 1],
    ] as const) {
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}`,
        width,
        encode: (c) => encodeRegForm({ width, opcode: [opFor(width, op)], reg: digit, rm: c.rm, forceRex: c.rex }),
      });
    }
  }
  return out;
}

const SHIFTS = ['rol', 'ror', 'rcl', 'rcr', 'shl', 'shr', '', 'sar'] as const;

/** Flags a shift or rotate leaves undefined for a count (SDM "Flags Affected" of SAL/SAR/SHL/SHR, RCL/RCR/ROL/ROR). */
export function shiftUndefinedFlags(mnemonic: string, width: Width, count: number): number {
  const masked = count & (width === 64 ? 63 : 31);
  if (masked === 0) return 0; // no flag is affected
  if (mnemonic === 'rol' || mnemonic === 'ror' || mnemonic === 'rcl' || mnemonic === 'rcr') {
    return masked === 1 ? 0 : OF;
  }
  let undefinedFlags = AF | (masked === 1 ? 0 : OF);
  if ((mnemonic === 'shl' || mnemonic === 'shr') && masked >= width) undefinedFlags |= CF;
  return undefinedFlags;
}

/** Flags and result shld/shrd leave undefined: flags past the width, and the 16-bit result past 16. */
function doubleShiftUndefined(width: Width, count: number): { flags: number; result: boolean } {
  const masked = count & (width === 64 ? 63 : 31);
  if (masked === 0) return { flags: 0, result: false };
  if (masked > width) return { flags: ARITH, result: true };
  return { flags: AF | (masked === 1 ? 0 : OF), result: false };
}

const setCl = (regs: bigint[], c: InsnChoice) => {
  regs[RCX] = (regs[RCX] & ~0xffn) | BigInt(c.count);
};

export function shiftTemplates(): InsnTemplate[] {
  const out: InsnTemplate[] = [];
  SHIFTS.forEach((mnemonic, digit) => {
    if (mnemonic === '') return;
    for (const width of WIDTHS) {
      const w = SUFFIX[width];
      const clCount = (regs: readonly bigint[]) => Number(regs[RCX] & 0xffn);
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}, cl`,
        width,
        // CL is the count, so the operand must not be RCX itself (that would shift by its own value).
        encode: (c) =>
          encodeRegForm({
            width,
            opcode: [opFor(width, 0xd2)],
            reg: digit,
            rm: c.rm === RCX ? RDX : c.rm,
            forceRex: c.rex,
          }),
        prepare: setCl,
        undefinedFlags: (regs) => shiftUndefinedFlags(mnemonic, width, clCount(regs)),
      });
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}, imm8`,
        width,
        encode: (c) =>
          encodeRegForm({
            width,
            opcode: [opFor(width, 0xc0)],
            reg: digit,
            rm: c.rm,
            forceRex: c.rex,
            imm: { size: 1, value: BigInt(c.count) },
          }),
        undefinedFlags: (_regs, c) => shiftUndefinedFlags(mnemonic, width, c.count),
      });
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}, 1`,
        width,
        encode: (c) => encodeRegForm({ width, opcode: [opFor(width, 0xd0)], reg: digit, rm: c.rm, forceRex: c.rex }),
        undefinedFlags: () => shiftUndefinedFlags(mnemonic, width, 1),
      });
    }
  });
  for (const [mnemonic, base] of [
    ['shld', 0xa4],
    ['shrd', 0xac],
  ] as const) {
    for (const width of [16, 32, 64] as const) {
      const w = SUFFIX[width];
      const rmOf = (c: InsnChoice) => (c.rm === RCX ? RDX : c.rm);
      const regOf = (c: InsnChoice) => (c.reg === RCX ? RAX : c.reg);
      const undefinedRegs = (count: number, c: InsnChoice) =>
        doubleShiftUndefined(width, count).result ? 1 << rmOf(c) : 0;
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}, r${w}, imm8`,
        width,
        encode: (c) =>
          encodeRegForm({
            width,
            opcode: [0x0f, base],
            reg: c.reg,
            rm: c.rm,
            imm: { size: 1, value: BigInt(c.count) },
          }),
        undefinedFlags: (_regs, c) => doubleShiftUndefined(width, c.count).flags,
        undefinedRegs: (_regs, c) => (doubleShiftUndefined(width, c.count).result ? 1 << c.rm : 0),
      });
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}, r${w}, cl`,
        width,
        encode: (c) => encodeRegForm({ width, opcode: [0x0f, base + 1], reg: regOf(c), rm: rmOf(c) }),
        prepare: setCl,
        undefinedFlags: (regs) => doubleShiftUndefined(width, Number(regs[RCX] & 0xffn)).flags,
        undefinedRegs: (regs, c) => undefinedRegs(Number(regs[RCX] & 0xffn), c),
      });
    }
  }
  return out;
}

const MUL_UNDEFINED = SF | ZF | AF | PF;
const DIV_UNDEFINED = ARITH;

/** Makes most divisions fit (no #DE) by shrinking the high half of the dividend, per `pick`. */
function shapeDividend(width: Width, signed: boolean) {
  return (regs: bigint[], c: InsnChoice) => {
    const mode = c.pick % 4;
    if (width === 8) {
      if (mode !== 0) regs[RAX] = (regs[RAX] & ~0xff00n) | (signed && regs[RAX] & 0x80n ? 0xff00n : 0n);
      return;
    }
    const bits = BigInt(width);
    const low = regs[RAX] & ((1n << bits) - 1n);
    const negative = (low >> (bits - 1n)) & 1n;
    const high = mode === 0 ? regs[RDX] : signed && negative ? (1n << bits) - 1n : 0n;
    regs[RDX] = mode === 0 ? regs[RDX] : (regs[RDX] & ~((1n << bits) - 1n)) | high;
  };
}

export function mulDivTemplates(): InsnTemplate[] {
  const out: InsnTemplate[] = [];
  for (const width of WIDTHS) {
    const w = SUFFIX[width];
    for (const [mnemonic, digit] of [
      ['mul', 4],
      ['imul', 5],
      ['div', 6],
      ['idiv', 7],
    ] as const) {
      const division = mnemonic === 'div' || mnemonic === 'idiv';
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}`,
        width,
        // The divisor must not be RAX/RDX (the dividend): shaping the dividend would change it too.
        encode: (c) =>
          encodeRegForm({
            width,
            opcode: [opFor(width, 0xf6)],
            reg: digit,
            rm: division && (c.rm === RAX || c.rm === RDX) ? 3 : c.rm,
            forceRex: c.rex,
          }),
        prepare: division ? shapeDividend(width, mnemonic === 'idiv') : undefined,
        undefinedFlags: () => (division ? DIV_UNDEFINED : MUL_UNDEFINED),
      });
    }
    if (width === 8) continue;
    out.push({
      mnemonic: 'imul',
      form: `imul r${w}, r/m${w}`,
      width,
      encode: (c) => encodeRegForm({ width, opcode: [0x0f, 0xaf], reg: c.reg, rm: c.rm }),
      undefinedFlags: () => MUL_UNDEFINED,
    });
    out.push({
      mnemonic: 'imul',
      form: `imul r${w}, r/m${w}, imm8`,
      width,
      encode: (c) => encodeRegForm({ width, opcode: [0x6b], reg: c.reg, rm: c.rm, imm: { size: 1, value: c.imm } }),
      undefinedFlags: () => MUL_UNDEFINED,
    });
    out.push({
      mnemonic: 'imul',
      form: `imul r${w}, r/m${w}, imm${width === 16 ? 16 : 32}`,
      width,
      encode: (c) =>
        encodeRegForm({ width, opcode: [0x69], reg: c.reg, rm: c.rm, imm: { size: immSize(width), value: c.imm } }),
      undefinedFlags: () => MUL_UNDEFINED,
    });
  }
  return out;
}

const CONDITIONS = ['o', 'no', 'b', 'ae', 'e', 'ne', 'be', 'a', 's', 'ns', 'p', 'np', 'l', 'ge', 'le', 'g'] as const;

export function bitTemplates(): InsnTemplate[] {
  const out: InsnTemplate[] = [];
  for (const width of [16, 32, 64] as const) {
    const w = SUFFIX[width];
    const sourceIsZero = (regs: readonly bigint[], c: InsnChoice) => (regs[c.rm] & ((1n << BigInt(width)) - 1n)) === 0n;
    for (const [mnemonic, op] of [
      ['bsf', 0xbc],
      ['bsr', 0xbd],
    ] as const) {
      out.push({
        mnemonic,
        form: `${mnemonic} r${w}, r/m${w}`,
        width,
        encode: (c) => encodeRegForm({ width, opcode: [0x0f, op], reg: c.reg, rm: c.rm }),
        undefinedFlags: () => CF | OF | SF | AF | PF,
        // A zero source leaves the destination undefined (Intel); AMD documents it unchanged.
        undefinedRegs: (regs, c) => (sourceIsZero(regs, c) ? 1 << c.reg : 0),
      });
    }
    out.push({
      mnemonic: 'tzcnt',
      form: `tzcnt r${w}, r/m${w}`,
      width,
      encode: (c) => encodeRegForm({ width, mandatory: 0xf3, opcode: [0x0f, 0xbc], reg: c.reg, rm: c.rm }),
      undefinedFlags: () => OF | SF | AF | PF,
    });
    for (const [mnemonic, op, digit] of [
      ['bt', 0xa3, 4],
      ['bts', 0xab, 5],
      ['btr', 0xb3, 6],
      ['btc', 0xbb, 7],
    ] as const) {
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}, r${w}`,
        width,
        encode: (c) => encodeRegForm({ width, opcode: [0x0f, op], reg: c.reg, rm: c.rm }),
        undefinedFlags: () => OF | SF | AF | PF,
      });
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}, imm8`,
        width,
        encode: (c) =>
          encodeRegForm({
            width,
            opcode: [0x0f, 0xba],
            reg: digit,
            rm: c.rm,
            imm: { size: 1, value: BigInt(c.count) },
          }),
        undefinedFlags: () => OF | SF | AF | PF,
      });
    }
    CONDITIONS.forEach((cc, i) => {
      out.push({
        mnemonic: `cmov${cc}`,
        form: `cmov${cc} r${w}, r/m${w}`,
        width,
        encode: (c) => encodeRegForm({ width, opcode: [0x0f, 0x40 + i], reg: c.reg, rm: c.rm }),
      });
    });
  }
  for (const width of [32, 64] as const) {
    out.push({
      mnemonic: 'bswap',
      form: `bswap r${SUFFIX[width]}`,
      width,
      encode: (c) => {
        const rex = (width === 64 ? 0x48 : 0x40) | (c.rm >> 3);
        const op = [0x0f, 0xc8 + (c.rm & 7)];
        return Uint8Array.from(rex === 0x40 ? op : [rex, ...op]);
      },
    });
  }
  CONDITIONS.forEach((cc, i) => {
    out.push({
      mnemonic: `set${cc}`,
      form: `set${cc} r/m8`,
      width: 8,
      encode: (c) => encodeRegForm({ width: 8, opcode: [0x0f, 0x90 + i], reg: 0, rm: c.rm, forceRex: c.rex }),
    });
  });
  return out;
}

export function moveTemplates(): InsnTemplate[] {
  const out: InsnTemplate[] = [];
  for (const width of [16, 32, 64] as const) {
    const w = SUFFIX[width];
    for (const [mnemonic, op, from] of [
      ['movzx', 0xb6, 8],
      ['movzx', 0xb7, 16],
      ['movsx', 0xbe, 8],
      ['movsx', 0xbf, 16],
    ] as const) {
      if (from >= width) continue;
      out.push({
        mnemonic,
        form: `${mnemonic} r${w}, r/m${from}`,
        width,
        encode: (c) => encodeRegForm({ width, opcode: [0x0f, op], reg: c.reg, rm: c.rm, forceRex: c.rex }),
      });
    }
  }
  out.push({
    mnemonic: 'movsxd',
    form: 'movsxd r64, r/m32',
    width: 64,
    encode: (c) => encodeRegForm({ width: 64, opcode: [0x63], reg: c.reg, rm: c.rm }),
  });
  for (const [mnemonic, bytes] of [
    ['cbw', [0x66, 0x98]],
    ['cwde', [0x98]],
    ['cdqe', [0x48, 0x98]],
    ['cwd', [0x66, 0x99]],
    ['cdq', [0x99]],
    ['cqo', [0x48, 0x99]],
    ['lahf', [0x9f]],
    ['sahf', [0x9e]],
  ] as const) {
    out.push({ mnemonic, form: mnemonic, width: 64, encode: () => Uint8Array.from(bytes) });
  }
  for (const width of WIDTHS) {
    const w = SUFFIX[width];
    for (const [mnemonic, op8, op] of [
      ['xchg', 0x86, 0x87],
      ['xadd', 0xc0, 0xc1],
      ['cmpxchg', 0xb0, 0xb1],
    ] as const) {
      const opcode = mnemonic === 'xchg' ? [opFor(width, op8, op)] : [0x0f, opFor(width, op8, op)];
      out.push({
        mnemonic,
        form: `${mnemonic} r/m${w}, r${w}`,
        width,
        encode: (c) => encodeRegForm({ width, opcode, reg: c.reg, rm: c.rm, forceRex: c.rex }),
        // cmpxchg compares with the accumulator: make them equal half of the time.
        prepare:
          mnemonic === 'cmpxchg'
            ? (regs, c) => {
                if (c.pick % 2 === 0) regs[RAX] = mask64(regs[c.rm]);
              }
            : undefined,
      });
    }
  }
  return out;
}

/**
 * `VEX.LZ.0F38.W{0,1} opcode /r`, register forms only: the 3-byte VEX prefix (C4) with map 0F38 and no
 * SIMD prefix, then ModRM with mod = 11. `vvvv` is the extra register VEX carries.
 */
function encodeVex38(width: 32 | 64, opcode: number, reg: number, rm: number, vvvv: number): Uint8Array {
  const r = (~reg >> 3) & 1;
  const b = (~rm >> 3) & 1;
  return Uint8Array.from([
    0xc4,
    (r << 7) | (1 << 6) | (b << 5) | 0b00010,
    ((width === 64 ? 1 : 0) << 7) | ((~vvvv & 15) << 3),
    opcode,
    0xc0 | ((reg & 7) << 3) | (rm & 7),
  ]);
}

/** andn, bextr, blsi, blsmsk, blsr (BMI1, which CPUID leaf 7 reports), at 32 and 64 bits. */
export function bmi1Templates(): InsnTemplate[] {
  const out: InsnTemplate[] = [];
  for (const width of [32, 64] as const) {
    const w = SUFFIX[width];
    const vvvv = (c: InsnChoice) => c.pick & 15;
    out.push({
      mnemonic: 'andn',
      form: `andn r${w}, r${w}, r/m${w}`,
      width,
      encode: (c) => encodeVex38(width, 0xf2, c.reg, c.rm, vvvv(c)),
      undefinedFlags: () => AF | PF,
    });
    out.push({
      mnemonic: 'bextr',
      form: `bextr r${w}, r/m${w}, r${w}`,
      width,
      encode: (c) => encodeVex38(width, 0xf7, c.reg, c.rm, vvvv(c)),
      // START and LEN (the control's bytes 0 and 1) around the operand's width, not random bytes.
      prepare: (regs, c) => {
        const v = vvvv(c);
        const start = c.count;
        const len = (c.pick >>> 4) % 72;
        regs[v] = (regs[v] & ~0xffffn) | BigInt(start | (len << 8));
      },
      undefinedFlags: () => AF | SF | PF,
    });
    for (const [mnemonic, digit] of [
      ['blsr', 1],
      ['blsmsk', 2],
      ['blsi', 3],
    ] as const) {
      out.push({
        mnemonic,
        form: `${mnemonic} r${w}, r/m${w}`,
        width,
        encode: (c) => encodeVex38(width, 0xf3, digit, c.rm, vvvv(c)),
        // A zero source now and then (CF's other value).
        prepare: (regs, c) => {
          if ((c.pick >>> 4) % 8 === 0) regs[c.rm] = 0n;
        },
        undefinedFlags: () => AF | PF,
      });
    }
  }
  return out;
}
