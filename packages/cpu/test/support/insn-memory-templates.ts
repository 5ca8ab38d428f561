/**
 * Memory-operand forms for the native differential tests: base registers point into a scratch page
 * mapped at the same address natively and in the emulator, whose window is compared after each case.
 * Covers read-modify-write ALU forms, shifts, bit strings with register offsets (which address outside
 * the operand), lock-prefixed forms, the stack (push/pop/pushf/popf/leave) and string instructions
 * with and without rep prefixes, in both directions (DF is random).
 * @see Intel SDM Vol. 2 (each instruction), Vol. 1 §7.3.9 (string operations)
 */
import {
  AF,
  ARITH,
  type InsnChoice,
  type InsnTemplate,
  OF,
  PF,
  RAX,
  RBP,
  RBX,
  RCX,
  RDI,
  RSI,
  RSP,
  SCRATCH_MIDDLE,
  SF,
  WINDOW_OFFSET,
  ZF,
} from './insn-case.js';
import { encodeMemForm, type MemForm, type Width } from './insn-encoding.js';
import { shiftUndefinedFlags } from './insn-templates.js';

const WIDTHS: readonly Width[] = [8, 16, 32, 64];
const R12 = 12;
const R13 = 13;

/** Addressing modes, chosen by `pick`: base (and index) registers. */
const MODES: readonly { readonly base: number; readonly index?: number; readonly scale?: 0 | 1 | 2 | 3 }[] = [
  { base: RBX },
  { base: RBP },
  { base: R12 },
  { base: R13 },
  { base: RBX, index: RSI, scale: 2 },
  { base: RSP },
];

const modeOf = (c: InsnChoice) => MODES[c.pick % MODES.length];
const dispOf = (c: InsnChoice) => ((c.pick >>> 3) % 64) - 32;

/** The memory operand of a case: mode and displacement from `pick`. */
function mem(c: InsnChoice, f: Omit<MemForm, 'base' | 'index' | 'scale' | 'disp'>): Uint8Array {
  const m = modeOf(c);
  return encodeMemForm({ ...f, base: m.base, index: m.index, scale: m.scale, disp: dispOf(c) });
}

/** Points the mode's base (and index) at the middle of the window. */
function pointAtWindow(regs: bigint[], c: InsnChoice): void {
  const m = modeOf(c);
  regs[m.base] = SCRATCH_MIDDLE;
  if (m.index !== undefined) regs[m.index] = BigInt((c.pick >>> 9) & 7);
}

/** A register operand that is not one of the address registers, from `c.reg`. */
function dataReg(c: InsnChoice): number {
  const m = modeOf(c);
  let r = c.reg;
  while (r === m.base || r === m.index || r === RSP) r = (r + 1) & 15;
  return r;
}

const op = (width: Width, op8: number, other = op8 + 1) => (width === 8 ? op8 : other);
const immSize = (width: Width): 1 | 2 | 4 => (width === 8 ? 1 : width === 16 ? 2 : 4);
const ALU = ['add', 'or', 'adc', 'sbb', 'and', 'sub', 'xor', 'cmp'] as const;
const logic = (m: string) => (m === 'and' || m === 'or' || m === 'xor' || m === 'test' ? AF : 0);

export function memoryAluTemplates(): InsnTemplate[] {
  const out: InsnTemplate[] = [];
  ALU.forEach((mnemonic, digit) => {
    for (const width of WIDTHS) {
      const base = { mnemonic, width, memory: true, prepare: pointAtWindow, undefinedFlags: () => logic(mnemonic) };
      out.push({
        ...base,
        form: `${mnemonic} m${width}, r${width}`,
        encode: (c) => mem(c, { width, opcode: [op(width, digit * 8)], reg: dataReg(c), forceRex: c.rex }),
      });
      out.push({
        ...base,
        form: `${mnemonic} r${width}, m${width}`,
        encode: (c) => mem(c, { width, opcode: [op(width, digit * 8 + 2)], reg: dataReg(c), forceRex: c.rex }),
      });
      out.push({
        ...base,
        form: `${mnemonic} m${width}, imm`,
        encode: (c) =>
          mem(c, { width, opcode: [op(width, 0x80, 0x81)], reg: digit, imm: { size: immSize(width), value: c.imm } }),
      });
    }
  });
  for (const width of WIDTHS) {
    for (const [mnemonic, opcode, digit] of [
      ['not', 0xf6, 2],
      ['neg', 0xf6, 3],
      ['inc', 0xfe, 0],
      ['dec', 0xfe, 1],
    ] as const) {
      out.push({
        mnemonic,
        form: `${mnemonic} m${width}`,
        width,
        memory: true,
        prepare: pointAtWindow,
        encode: (c) => mem(c, { width, opcode: [op(width, opcode)], reg: digit }),
      });
    }
    out.push({
      mnemonic: 'test',
      form: `test m${width}, r${width}`,
      width,
      memory: true,
      prepare: pointAtWindow,
      undefinedFlags: () => AF,
      encode: (c) => mem(c, { width, opcode: [op(width, 0x84)], reg: dataReg(c), forceRex: c.rex }),
    });
    // lock-prefixed read-modify-write forms (single CPU: the prefix must not change the result).
    for (const [mnemonic, opcode, digit] of [
      ['add', 0x00, -1],
      ['and', 0x20, -1],
      ['inc', 0xfe, 0],
    ] as const) {
      out.push({
        mnemonic,
        form: `lock ${mnemonic} m${width}${digit < 0 ? `, r${width}` : ''}`,
        width,
        memory: true,
        prepare: pointAtWindow,
        undefinedFlags: () => logic(mnemonic),
        encode: (c) =>
          mem(c, { width, prefixes: [0xf0], opcode: [op(width, opcode)], reg: digit < 0 ? dataReg(c) : digit }),
      });
    }
  }
  return out;
}

const SHIFTS = ['rol', 'ror', 'rcl', 'rcr', 'shl', 'shr', '', 'sar'] as const;

export function memoryShiftTemplates(): InsnTemplate[] {
  const out: InsnTemplate[] = [];
  SHIFTS.forEach((mnemonic, digit) => {
    if (mnemonic === '') return;
    for (const width of WIDTHS) {
      out.push({
        mnemonic,
        form: `${mnemonic} m${width}, cl`,
        width,
        memory: true,
        prepare: (regs, c) => {
          pointAtWindow(regs, c);
          regs[RCX] = (regs[RCX] & ~0xffn) | BigInt(c.count);
        },
        undefinedFlags: (regs) => shiftUndefinedFlags(mnemonic, width, Number(regs[RCX] & 0xffn)),
        encode: (c) => mem(c, { width, opcode: [op(width, 0xd2)], reg: digit }),
      });
    }
  });
  for (const [mnemonic, opcode] of [
    ['shld', 0xa5],
    ['shrd', 0xad],
  ] as const) {
    for (const width of [32, 64] as const) {
      out.push({
        mnemonic,
        form: `${mnemonic} m${width}, r${width}, cl`,
        width,
        memory: true,
        prepare: (regs, c) => {
          pointAtWindow(regs, c);
          regs[RCX] = (regs[RCX] & ~0xffn) | BigInt(c.count);
        },
        undefinedFlags: (regs) => {
          const masked = Number(regs[RCX] & 0xffn) & (width === 64 ? 63 : 31);
          return masked === 0 ? 0 : AF | (masked === 1 ? 0 : OF);
        },
        encode: (c) => mem(c, { width, opcode: [0x0f, opcode], reg: dataReg(c) === RCX ? RAX : dataReg(c) }),
      });
    }
  }
  return out;
}

const BT_UNDEFINED = OF | SF | AF | PF;
const MUL_UNDEFINED = SF | ZF | AF | PF;

export function memoryBitAndMulTemplates(): InsnTemplate[] {
  const out: InsnTemplate[] = [];
  for (const width of [16, 32, 64] as const) {
    for (const [mnemonic, opcode, digit] of [
      ['bt', 0xa3, 4],
      ['bts', 0xab, 5],
      ['btr', 0xb3, 6],
      ['btc', 0xbb, 7],
    ] as const) {
      out.push({
        mnemonic,
        form: `${mnemonic} m${width}, r${width} (bit offset -1024..1023)`,
        width,
        memory: true,
        // The bit offset is signed and may address far outside the operand (still inside the window).
        prepare: (regs, c) => {
          pointAtWindow(regs, c);
          regs[RAX] = BigInt.asUintN(64, BigInt((c.pick % 2048) - 1024));
        },
        undefinedFlags: () => BT_UNDEFINED,
        encode: (c) => mem(c, { width, opcode: [0x0f, opcode], reg: RAX }),
      });
      out.push({
        mnemonic,
        form: `${mnemonic} m${width}, imm8`,
        width,
        memory: true,
        prepare: pointAtWindow,
        undefinedFlags: () => BT_UNDEFINED,
        encode: (c) => mem(c, { width, opcode: [0x0f, 0xba], reg: digit, imm: { size: 1, value: BigInt(c.count) } }),
      });
    }
  }
  for (const width of WIDTHS) {
    for (const [mnemonic, digit] of [
      ['mul', 4],
      ['imul', 5],
      ['div', 6],
      ['idiv', 7],
    ] as const) {
      const division = digit >= 6;
      out.push({
        mnemonic,
        form: `${mnemonic} m${width}`,
        width,
        memory: true,
        prepare: (regs, c) => {
          pointAtWindow(regs, c);
          // Usually a dividend whose high half fits, so most divisions do not raise #DE.
          if (division && c.count % 4 !== 0) regs[2] = 0n;
          if (division && width === 8 && c.count % 4 !== 0) regs[RAX] &= ~0xff00n;
        },
        undefinedFlags: () => (division ? ARITH : MUL_UNDEFINED),
        encode: (c) => mem(c, { width, opcode: [op(width, 0xf6)], reg: digit }),
      });
    }
  }
  return out;
}

export function memoryMoveTemplates(): InsnTemplate[] {
  const out: InsnTemplate[] = [];
  const at = { memory: true, prepare: pointAtWindow } as const;
  for (const width of WIDTHS) {
    out.push(
      {
        ...at,
        mnemonic: 'mov',
        form: `mov m${width}, r${width}`,
        width,
        encode: (c) => mem(c, { width, opcode: [op(width, 0x88)], reg: dataReg(c), forceRex: c.rex }),
      },
      {
        ...at,
        mnemonic: 'mov',
        form: `mov r${width}, m${width}`,
        width,
        encode: (c) => mem(c, { width, opcode: [op(width, 0x8a)], reg: dataReg(c), forceRex: c.rex }),
      },
      {
        ...at,
        mnemonic: 'mov',
        form: `mov m${width}, imm`,
        width,
        encode: (c) =>
          mem(c, { width, opcode: [op(width, 0xc6)], reg: 0, imm: { size: immSize(width), value: c.imm } }),
      },
    );
    for (const [mnemonic, opcode] of [
      ['xchg', 0x86],
      ['xadd', 0xc0],
      ['cmpxchg', 0xb0],
    ] as const) {
      for (const locked of [false, true]) {
        if (locked && mnemonic === 'xchg') continue;
        out.push({
          mnemonic,
          form: `${locked ? 'lock ' : ''}${mnemonic} m${width}, r${width}`,
          width,
          memory: true,
          prepare: (regs, c, memory) => {
            pointAtWindow(regs, c);
            // cmpxchg: make the accumulator equal to the operand half of the time.
            if (mnemonic === 'cmpxchg' && c.count % 2 === 0) {
              const offset = Number(regs[modeOf(c).base] - SCRATCH_MIDDLE) + 0x100 + dispOf(c);
              const index = modeOf(c).index === undefined ? 0 : Number(regs[RSI]) * 4;
              let v = 0n;
              for (let k = width / 8 - 1; k >= 0; k--) v = (v << 8n) | BigInt(memory[offset + index + k]);
              regs[RAX] = v;
            }
          },
          encode: (c) =>
            mem(c, {
              width,
              prefixes: locked ? [0xf0] : [],
              opcode: mnemonic === 'xchg' ? [op(width, opcode)] : [0x0f, op(width, opcode)],
              reg: dataReg(c) === RAX && mnemonic === 'cmpxchg' ? RCX : dataReg(c),
              forceRex: c.rex,
            }),
        });
      }
    }
  }
  for (const [mnemonic, opcode, width] of [
    ['movzx', 0xb6, 32],
    ['movzx', 0xb7, 64],
    ['movsx', 0xbe, 64],
    ['movsx', 0xbf, 32],
  ] as const) {
    out.push({
      ...at,
      mnemonic,
      form: `${mnemonic} r${width}, m${opcode & 1 ? 16 : 8}`,
      width,
      encode: (c) => mem(c, { width, opcode: [0x0f, opcode], reg: dataReg(c) }),
    });
  }
  out.push({
    ...at,
    mnemonic: 'movsxd',
    form: 'movsxd r64, m32',
    width: 64,
    encode: (c) => mem(c, { width: 64, opcode: [0x63], reg: dataReg(c) }),
  });
  for (const [cc, i] of [
    ['b', 2],
    ['e', 4],
    ['be', 6],
    ['l', 12],
    ['g', 15],
  ] as const) {
    out.push({
      ...at,
      mnemonic: `cmov${cc}`,
      form: `cmov${cc} r64, m64`,
      width: 64,
      encode: (c) => mem(c, { width: 64, opcode: [0x0f, 0x40 + i], reg: dataReg(c) }),
    });
    out.push({
      ...at,
      mnemonic: `set${cc}`,
      form: `set${cc} m8`,
      width: 8,
      encode: (c) => mem(c, { width: 8, opcode: [0x0f, 0x90 + i], reg: 0 }),
    });
  }
  return out;
}

/** RSP in the window, 8-aligned or not (from `pick`). */
function stackInWindow(regs: bigint[], c: InsnChoice): void {
  regs[RSP] = SCRATCH_MIDDLE + BigInt((c.pick % 32) - 16);
}

export function stackTemplates(): InsnTemplate[] {
  const at = { memory: true, width: 64 as const };
  const withStack = (regs: bigint[], c: InsnChoice) => stackInWindow(regs, c);
  const literal =
    (...bytes: number[]) =>
    () =>
      Uint8Array.from(bytes);
  return [
    {
      ...at,
      mnemonic: 'push',
      form: 'push r64',
      prepare: withStack,
      encode: (c) => Uint8Array.from(c.rm >= 8 ? [0x41, 0x50 + (c.rm & 7)] : [0x50 + c.rm]),
    },
    {
      ...at,
      mnemonic: 'pop',
      form: 'pop r64',
      prepare: withStack,
      encode: (c) => Uint8Array.from(c.rm >= 8 ? [0x41, 0x58 + (c.rm & 7)] : [0x58 + c.rm]),
    },
    {
      ...at,
      mnemonic: 'push',
      form: 'push r16',
      prepare: withStack,
      encode: (c) => Uint8Array.from(c.rm >= 8 ? [0x66, 0x41, 0x50 + (c.rm & 7)] : [0x66, 0x50 + c.rm]),
    },
    {
      ...at,
      mnemonic: 'push',
      form: 'push imm8',
      prepare: withStack,
      encode: (c) => Uint8Array.of(0x6a, Number(c.imm & 0xffn)),
    },
    {
      ...at,
      mnemonic: 'push',
      form: 'push imm32',
      prepare: withStack,
      encode: (c) => {
        const v = Number(BigInt.asUintN(32, c.imm));
        return Uint8Array.of(0x68, v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24);
      },
    },
    {
      ...at,
      mnemonic: 'push',
      form: 'push m64',
      prepare: (regs, c) => {
        pointAtWindow(regs, c);
        if (modeOf(c).base !== RSP) stackInWindow(regs, c);
      },
      encode: (c) => mem(c, { width: 64, noRexW: true, opcode: [0xff], reg: 6 }),
    },
    {
      ...at,
      mnemonic: 'pop',
      form: 'pop m64',
      prepare: (regs, c) => {
        pointAtWindow(regs, c);
        if (modeOf(c).base !== RSP) stackInWindow(regs, c);
      },
      encode: (c) => mem(c, { width: 64, noRexW: true, opcode: [0x8f], reg: 0 }),
    },
    { ...at, mnemonic: 'pushfq', form: 'pushfq', prepare: withStack, encode: literal(0x9c) },
    {
      ...at,
      mnemonic: 'popfq',
      form: 'popfq (arithmetic flags and DF only)',
      // Only flags user mode may change and the tests compare: no TF, IF, AC.
      prepare: (regs, c, memory) => {
        stackInWindow(regs, c);
        const offset = Number(regs[RSP] - SCRATCH_MIDDLE) + 0x800 - WINDOW_OFFSET;
        const value = (c.pick & 0xcd5) | 2;
        memory.fill(0, offset, offset + 8);
        memory[offset] = value & 0xff;
        memory[offset + 1] = value >> 8;
      },
      encode: literal(0x9d),
    },
    {
      ...at,
      mnemonic: 'leave',
      form: 'leave',
      prepare: (regs, c) => {
        regs[RBP] = SCRATCH_MIDDLE + BigInt((c.pick % 32) - 16);
      },
      encode: literal(0xc9),
    },
  ];
}

/** String instructions: literal encodings, with and without rep/repe/repne. */
const STRINGS: readonly { readonly mnemonic: string; readonly form: string; readonly bytes: readonly number[] }[] = [
  { mnemonic: 'movsb', form: 'movsb', bytes: [0xa4] },
  { mnemonic: 'movsq', form: 'movsq', bytes: [0x48, 0xa5] },
  { mnemonic: 'movsb', form: 'rep movsb', bytes: [0xf3, 0xa4] },
  { mnemonic: 'movsw', form: 'rep movsw', bytes: [0xf3, 0x66, 0xa5] },
  { mnemonic: 'movsd', form: 'rep movsd', bytes: [0xf3, 0xa5] },
  { mnemonic: 'movsq', form: 'rep movsq', bytes: [0xf3, 0x48, 0xa5] },
  { mnemonic: 'stosb', form: 'rep stosb', bytes: [0xf3, 0xaa] },
  { mnemonic: 'stosw', form: 'rep stosw', bytes: [0xf3, 0x66, 0xab] },
  { mnemonic: 'stosd', form: 'rep stosd', bytes: [0xf3, 0xab] },
  { mnemonic: 'stosq', form: 'rep stosq', bytes: [0xf3, 0x48, 0xab] },
  { mnemonic: 'stosq', form: 'stosq', bytes: [0x48, 0xab] },
  { mnemonic: 'lodsb', form: 'lodsb', bytes: [0xac] },
  { mnemonic: 'lodsd', form: 'lodsd', bytes: [0xad] },
  { mnemonic: 'lodsq', form: 'rep lodsq', bytes: [0xf3, 0x48, 0xad] },
  { mnemonic: 'cmpsb', form: 'cmpsb', bytes: [0xa6] },
  { mnemonic: 'cmpsb', form: 'repe cmpsb', bytes: [0xf3, 0xa6] },
  { mnemonic: 'cmpsq', form: 'repne cmpsq', bytes: [0xf2, 0x48, 0xa7] },
  { mnemonic: 'scasb', form: 'repne scasb', bytes: [0xf2, 0xae] },
  { mnemonic: 'scasb', form: 'repe scasb', bytes: [0xf3, 0xae] },
  { mnemonic: 'scasw', form: 'scasw', bytes: [0x66, 0xaf] },
  { mnemonic: 'scasq', form: 'repe scasq', bytes: [0xf3, 0x48, 0xaf] },
];

export function stringTemplates(): InsnTemplate[] {
  return STRINGS.map(({ mnemonic, form, bytes }) => ({
    mnemonic,
    form: `${form} (DF random)`,
    width: 64,
    memory: true,
    // RSI/RDI near the middle of the window, RCX small; for compares, a run of equal bytes.
    prepare: (regs, c, memory) => {
      regs[RSI] = SCRATCH_MIDDLE + BigInt((c.pick % 64) - 32);
      regs[RDI] = SCRATCH_MIDDLE + BigInt(((c.pick >>> 6) % 64) - 32);
      regs[RCX] = BigInt((c.pick >>> 12) % 20);
      const source = Number(regs[RSI] - SCRATCH_MIDDLE) + 0x100;
      const target = Number(regs[RDI] - SCRATCH_MIDDLE) + 0x100;
      const equal = c.count % 24;
      for (let k = -equal; k < equal; k++) {
        if (source + k >= 0 && target + k >= 0 && source + k < 0x200 && target + k < 0x200) {
          memory[target + k] = memory[source + k];
        }
      }
      if (c.count % 3 === 0) regs[RAX] = BigInt(memory[target]) | (regs[RAX] & ~0xffn);
    },
    encode: () => Uint8Array.from(bytes),
  }));
}
