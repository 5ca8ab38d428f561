import { Code, type Instruction, Mnemonic as M, OpKind, Register } from 'iced-x86';
import { type Insn, MemoryForm, OperandKind } from './insn.js';
import { Op } from './op.js';

/** Thrown inside translate when an encoding is outside the supported set; becomes Op.Ud. */
class Unsupported {}
const UNSUPPORTED = new Unsupported();

const ALU: Partial<Record<number, number>> = {
  [M.Add]: Op.Add,
  [M.Or]: Op.Or,
  [M.Adc]: Op.Adc,
  [M.Sbb]: Op.Sbb,
  [M.And]: Op.And,
  [M.Sub]: Op.Sub,
  [M.Xor]: Op.Xor,
  [M.Cmp]: Op.Cmp,
  [M.Test]: Op.Test,
};
const UNARY: Partial<Record<number, number>> = {
  [M.Inc]: Op.Inc,
  [M.Dec]: Op.Dec,
  [M.Not]: Op.Not,
  [M.Neg]: Op.Neg,
};
const SHIFT: Partial<Record<number, number>> = {
  [M.Rol]: 0,
  [M.Ror]: 1,
  [M.Rcl]: 2,
  [M.Rcr]: 3,
  [M.Shl]: 4,
  [M.Sal]: 4,
  [M.Shr]: 5,
  [M.Sar]: 7,
};
const NOARG: Partial<Record<number, number>> = {
  [M.Nop]: Op.Nop,
  // 0F 0D and 0F 18..1F forms Intel reserves as NOPs (hints): they execute as nop.
  [M.Reservednop]: Op.Nop,
  [M.Endbr64]: Op.Nop,
  [M.Pause]: Op.Nop,
  [M.Lfence]: Op.Nop,
  [M.Mfence]: Op.Nop,
  [M.Sfence]: Op.Nop,
  [M.Clc]: Op.Clc,
  [M.Stc]: Op.Stc,
  [M.Cmc]: Op.Cmc,
  [M.Cld]: Op.Cld,
  [M.Std]: Op.Std,
  [M.Lahf]: Op.Lahf,
  [M.Sahf]: Op.Sahf,
  [M.Pushfq]: Op.Pushf,
  [M.Popfq]: Op.Popf,
  // 66 9C / 66 9D: the low 16 bits of RFLAGS (size 2).
  [M.Pushf]: Op.Pushf,
  [M.Popf]: Op.Popf,
  [M.Cli]: Op.Cli,
  [M.Sti]: Op.Sti,
  [M.Hlt]: Op.Hlt,
  [M.Int3]: Op.Int3,
  [M.Iretq]: Op.Iretq,
  [M.Syscall]: Op.Syscall,
  [M.Sysretq]: Op.Sysret,
  [M.Swapgs]: Op.Swapgs,
  [M.Rdmsr]: Op.Rdmsr,
  [M.Wrmsr]: Op.Wrmsr,
  [M.Cpuid]: Op.Cpuid,
  [M.Rdtsc]: Op.Rdtsc,
  [M.Rdtscp]: Op.Rdtscp,
  [M.Ud2]: Op.Ud2,
};
const CONVERT: Partial<Record<number, [number, number]>> = {
  [M.Cbw]: [Op.Cbw, 2],
  [M.Cwde]: [Op.Cbw, 4],
  [M.Cdqe]: [Op.Cbw, 8],
  [M.Cwd]: [Op.Cwd, 2],
  [M.Cdq]: [Op.Cwd, 4],
  [M.Cqo]: [Op.Cwd, 8],
};
const STRING: Partial<Record<number, [number, number]>> = {
  [M.Movsb]: [Op.Movs, 1],
  [M.Movsw]: [Op.Movs, 2],
  [M.Movsd]: [Op.Movs, 4],
  [M.Movsq]: [Op.Movs, 8],
  [M.Stosb]: [Op.Stos, 1],
  [M.Stosw]: [Op.Stos, 2],
  [M.Stosd]: [Op.Stos, 4],
  [M.Stosq]: [Op.Stos, 8],
  [M.Lodsb]: [Op.Lods, 1],
  [M.Lodsw]: [Op.Lods, 2],
  [M.Lodsd]: [Op.Lods, 4],
  [M.Lodsq]: [Op.Lods, 8],
  [M.Cmpsb]: [Op.Cmps, 1],
  [M.Cmpsw]: [Op.Cmps, 2],
  [M.Cmpsd]: [Op.Cmps, 4],
  [M.Cmpsq]: [Op.Cmps, 8],
  [M.Scasb]: [Op.Scas, 1],
  [M.Scasw]: [Op.Scas, 2],
  [M.Scasd]: [Op.Scas, 4],
  [M.Scasq]: [Op.Scas, 8],
};
const SIMPLE_RM: Partial<Record<number, number>> = {
  [M.Bsf]: Op.Bsf,
  [M.Bsr]: Op.Bsr,
  [M.Tzcnt]: Op.Tzcnt,
  [M.Lzcnt]: Op.Lzcnt,
  [M.Popcnt]: Op.Popcnt,
  [M.Cmpxchg]: Op.Cmpxchg,
  [M.Xadd]: Op.Xadd,
};
const BT: Partial<Record<number, number>> = { [M.Bt]: 0, [M.Bts]: 1, [M.Btr]: 2, [M.Btc]: 3 };
/** The BMI1 group ({@link Op.Bmi1}'s i2); tzcnt is BMI1 too, with its own op. */
const BMI1: Partial<Record<number, number>> = { [M.Andn]: 0, [M.Bextr]: 1, [M.Blsi]: 2, [M.Blsmsk]: 3, [M.Blsr]: 4 };
// MemorySize values: UInt8 Int8 UInt16 Int16 UInt32 Int32 UInt64 Int64 QwordOffset (near indirect branch target).
const MEM_SIZE: Record<number, number> = { 1: 1, 9: 1, 2: 2, 10: 2, 3: 4, 11: 4, 5: 8, 12: 8, 21: 8 };

/** Jecxz and the loops whose count register is ECX (a 32-bit address size). */
const ECX_COUNTED = new Set<number>([
  Code.Jecxz_rel8_64,
  Code.Loop_rel8_64_ECX,
  Code.Loope_rel8_64_ECX,
  Code.Loopne_rel8_64_ECX,
]);

/** GPR number (0..15, 16..19 = AH..BH) and size of an iced register, or throws Unsupported. */
function gpr(r: Register): [number, number] {
  if (r >= Register.AL && r <= Register.BL) return [r - Register.AL, 1];
  if (r >= Register.AH && r <= Register.BH) return [16 + r - Register.AH, 1];
  if (r >= Register.SPL && r <= Register.R15L) return [4 + r - Register.SPL, 1];
  if (r >= Register.AX && r <= Register.R15W) return [r - Register.AX, 2];
  if (r >= Register.EAX && r <= Register.R15D) return [r - Register.EAX, 4];
  if (r >= Register.RAX && r <= Register.R15) return [r - Register.RAX, 8];
  throw UNSUPPORTED;
}

function halves(v: bigint, size: number): [number, number] {
  const u = BigInt.asUintN(64, v);
  // `| 0` keeps the values small integers (Number(bigint) yields heap numbers, which would turn
  // every Insn field into a boxed double).
  const lo = Number(BigInt.asIntN(32, u)) | 0;
  if (size === 1) return [lo & 0xff, 0];
  if (size === 2) return [lo & 0xffff, 0];
  if (size === 4) return [lo, 0];
  return [lo, Number(BigInt.asIntN(32, u >> 32n)) | 0];
}

function isImm(k: OpKind): boolean {
  return k >= OpKind.Immediate8 && k <= OpKind.Immediate32to64;
}

/** Fills the memory fields of `insn` from the instruction's memory operand. */
function memory(ins: Instruction, insn: Insn): void {
  const base = ins.memoryBase;
  const index = ins.memoryIndex;
  const [dl, dh] = halves(ins.memoryDisplacement, 8);
  insn.ml = dl;
  insn.mh = dh;
  if (base === Register.RIP) insn.mb = -1;
  else if (base === Register.EIP) throw UNSUPPORTED;
  else if (base !== Register.None) {
    const [b, s] = gpr(base);
    if (s === 4) insn.a32 = 1;
    else if (s !== 8) throw UNSUPPORTED;
    insn.mb = b;
  }
  if (index !== Register.None) {
    const [x, s] = gpr(index);
    if (s === 4) insn.a32 = 1;
    else if (s !== 8) throw UNSUPPORTED;
    insn.mi = x;
    insn.ms = ins.memoryIndexScale;
  }
  if (insn.a32) insn.mh = 0;
  const seg = ins.memorySegment;
  insn.seg = seg === Register.FS ? 1 : seg === Register.GS ? 2 : 0;
}

/** The {@link MemoryForm} of the memory fields (Disp for an instruction without a memory operand). */
function memoryForm(insn: Insn): number {
  if (insn.a32 !== 0 || insn.seg !== 0) return MemoryForm.General;
  if (insn.mb >= 0) return insn.mi >= 0 ? MemoryForm.BaseIndex : MemoryForm.Base;
  return insn.mi >= 0 ? MemoryForm.Index : MemoryForm.Disp;
}

/** Decodes operand `n` into the destination (`dst`) or source fields; returns its size (0 if unknown). */
function operand(ins: Instruction, insn: Insn, n: number, dst: boolean): number {
  const k = ins.opKind(n);
  if (k === OpKind.Register) {
    const [r, s] = gpr(ins.opRegister(n));
    if (dst) {
      insn.dk = OperandKind.Reg;
      insn.dr = r;
    } else {
      insn.sk = OperandKind.Reg;
      insn.sr = r;
    }
    return s;
  }
  if (k === OpKind.Memory) {
    memory(ins, insn);
    if (dst) insn.dk = OperandKind.Mem;
    else insn.sk = OperandKind.Mem;
    return MEM_SIZE[ins.memorySize] ?? 0;
  }
  if (isImm(k) && !dst) {
    insn.sk = OperandKind.Imm;
    return 0;
  }
  throw UNSUPPORTED;
}

/** Two-operand form `op0, op1` with size from op0 (or op1); immediates sign-extended to that size. */
function binary(ins: Instruction, insn: Insn, op: number): void {
  insn.op = op;
  const s0 = operand(ins, insn, 0, true);
  const s1 = ins.opCount > 1 ? operand(ins, insn, 1, false) : 0;
  insn.size = s0 || s1;
  if (insn.size === 0) throw UNSUPPORTED;
  if (insn.sk === OperandKind.Imm) [insn.il, insn.ih] = halves(ins.immediate(1), insn.size);
}

function translateMov(ins: Instruction, insn: Insn): void {
  const k0 = ins.op0Kind;
  const k1 = ins.op1Kind;
  if (k0 === OpKind.Register && ins.op0Register >= Register.CR0 && ins.op0Register <= Register.CR15) {
    insn.op = Op.MovToCr;
    insn.cc = ins.op0Register - Register.CR0;
    operand(ins, insn, 1, false);
    return;
  }
  if (k1 === OpKind.Register && ins.op1Register >= Register.CR0 && ins.op1Register <= Register.CR15) {
    insn.op = Op.MovFromCr;
    insn.cc = ins.op1Register - Register.CR0;
    operand(ins, insn, 0, true);
    return;
  }
  binary(ins, insn, Op.MovRR);
  if (k0 === OpKind.Register) insn.op = k1 === OpKind.Register ? Op.MovRR : k1 === OpKind.Memory ? Op.MovRM : Op.MovRI;
  else insn.op = k1 === OpKind.Register ? Op.MovMR : Op.MovMI;
}

/** Instructions found through the mnemonic tables; returns false when `m` is in none. */
function translateTabled(ins: Instruction, insn: Insn, m: M): boolean {
  const alu = ALU[m];
  if (alu !== undefined) {
    binary(ins, insn, alu);
    if (insn.dk === OperandKind.Reg && insn.size >= 4) {
      insn.i2 = alu;
      insn.op = Op.AluReg;
    }
    return true;
  }
  const unary = UNARY[m] ?? SIMPLE_RM[m];
  if (unary !== undefined) {
    binary(ins, insn, unary);
    return true;
  }
  const noarg = NOARG[m];
  if (noarg !== undefined) {
    insn.op = noarg;
    if (m === M.Pushf || m === M.Popf) insn.size = 2;
    return true;
  }
  const shift = SHIFT[m];
  if (shift !== undefined) {
    binary(ins, insn, Op.Shift);
    insn.cc = shift;
    return true;
  }
  const bt = BT[m];
  if (bt !== undefined) {
    binary(ins, insn, Op.Bt);
    insn.cc = bt;
    if (insn.sk === OperandKind.Imm) insn.il = Number(ins.immediate(1)) & 0xff;
    return true;
  }
  const convert = CONVERT[m];
  if (convert !== undefined) {
    [insn.op, insn.size] = convert;
    return true;
  }
  const x = STRING[m];
  if (x !== undefined) {
    const k = ins.op0Kind === OpKind.Register ? ins.op1Kind : ins.op0Kind;
    if (k < OpKind.MemorySegSI || k > OpKind.MemoryESRDI) throw UNSUPPORTED;
    insn.op = x[0];
    insn.size = x[1];
    insn.size2 = k === OpKind.MemorySegESI || k === OpKind.MemorySegEDI || k === OpKind.MemoryESEDI ? 4 : 8;
    if (k === OpKind.MemorySegSI || k === OpKind.MemorySegDI || k === OpKind.MemoryESDI) throw UNSUPPORTED;
    insn.cc = ins.hasRepnePrefix ? 2 : ins.hasRepePrefix ? 1 : 0;
    const seg = ins.memorySegment;
    insn.seg = seg === Register.FS ? 1 : seg === Register.GS ? 2 : 0;
    return true;
  }
  return false;
}

function translateOperands(ins: Instruction, insn: Insn): void {
  const m = ins.mnemonic;
  const cc = ins.conditionCode;
  if (cc !== 0) insn.cc = cc - 1;
  if (translateTabled(ins, insn, m)) return;
  switch (m) {
    case M.Mov:
      translateMov(ins, insn);
      return;
    case M.Movzx:
    case M.Movsx:
    case M.Movsxd: {
      insn.op = m === M.Movzx ? Op.Movzx : Op.Movsx;
      insn.size = operand(ins, insn, 0, true);
      const s = operand(ins, insn, 1, false);
      insn.size2 = s;
      if (s === 0) throw UNSUPPORTED;
      return;
    }
    case M.Lea:
      insn.op = Op.Lea;
      insn.size = operand(ins, insn, 0, true);
      if (ins.op1Kind !== OpKind.Memory) throw UNSUPPORTED;
      memory(ins, insn);
      insn.seg = 0;
      return;
    case M.Andn:
    case M.Bextr:
    case M.Blsi:
    case M.Blsmsk:
    case M.Blsr: {
      // VEX.L must be 0 (iced decodes VEX.L1 forms as invalid already); 32 or 64 bits by VEX.W.
      const kind = BMI1[m] as number;
      insn.op = Op.Bmi1;
      insn.i2 = kind;
      insn.size = operand(ins, insn, 0, true);
      if (insn.dk !== OperandKind.Reg || (insn.size !== 4 && insn.size !== 8)) throw UNSUPPORTED;
      if (kind === 0) {
        insn.r3 = gpr(ins.op1Register)[0];
        if (operand(ins, insn, 2, false) !== insn.size) throw UNSUPPORTED;
      } else {
        if (operand(ins, insn, 1, false) !== insn.size) throw UNSUPPORTED;
        if (kind === 1) insn.r3 = gpr(ins.op2Register)[0];
      }
      return;
    }
    case M.Shld:
    case M.Shrd:
      binary(ins, insn, m === M.Shld ? Op.Shld : Op.Shrd);
      if (ins.op2Kind === OpKind.Register) insn.r3 = 1;
      else insn.i2 = ins.immediate8;
      return;
    case M.Imul:
      if (ins.opCount === 1) {
        insn.op = Op.Imul1;
        insn.size = operand(ins, insn, 0, false);
        return;
      }
      binary(ins, insn, Op.Imul2);
      if (ins.opCount === 3) {
        insn.i2 = 1;
        [insn.il, insn.ih] = halves(ins.immediate(2), insn.size);
      }
      return;
    case M.Mul:
    case M.Div:
    case M.Idiv:
      insn.op = m === M.Mul ? Op.Mul : m === M.Div ? Op.Div : Op.Idiv;
      insn.size = operand(ins, insn, 0, false);
      return;
    case M.Push:
      insn.op = Op.Push;
      insn.size = operand(ins, insn, 0, false) || -ins.stackPointerIncrement;
      if (insn.sk === OperandKind.Imm) [insn.il, insn.ih] = halves(ins.immediate(0), insn.size);
      return;
    case M.Pop:
      insn.op = Op.Pop;
      insn.size = operand(ins, insn, 0, true);
      return;
    case M.Xchg:
      if (ins.op1Kind === OpKind.Memory) {
        insn.op = Op.Xchg;
        insn.size = operand(ins, insn, 1, true);
        operand(ins, insn, 0, false);
        return;
      }
      binary(ins, insn, Op.Xchg);
      return;
    case M.Bswap:
      binary(ins, insn, Op.Bswap);
      // BSWAP of a 16-bit register: "the result is undefined" (SDM) — not an exact encoding.
      if (insn.size !== 4 && insn.size !== 8) throw UNSUPPORTED;
      return;
    case M.Leave:
      // 66 C9 (Leavew): RSP = RBP, then BP = a 16-bit pop; the stack address size stays 64.
      insn.op = Op.Leave;
      insn.size = ins.code === Code.Leavew ? 2 : 8;
      return;
    case M.Cmpxchg8b:
    case M.Cmpxchg16b:
      insn.op = Op.CmpxchgWide;
      insn.size = m === M.Cmpxchg8b ? 8 : 16;
      if (ins.op0Kind !== OpKind.Memory) throw UNSUPPORTED;
      memory(ins, insn);
      insn.dk = OperandKind.Mem;
      return;
    case M.Rdfsbase:
    case M.Rdgsbase:
    case M.Wrfsbase:
    case M.Wrgsbase:
      insn.op = m === M.Rdfsbase || m === M.Rdgsbase ? Op.RdSegBase : Op.WrSegBase;
      insn.cc = m === M.Rdfsbase || m === M.Wrfsbase ? 0 : 1;
      insn.size = operand(ins, insn, 0, insn.op === Op.RdSegBase);
      return;
    case M.Call:
    case M.Jmp:
      if (ins.op0Kind === OpKind.NearBranch64) {
        insn.op = m === M.Call ? Op.Call : Op.Jmp;
        [insn.tl, insn.th] = halves(ins.nearBranchTarget, 8);
        return;
      }
      insn.op = m === M.Call ? Op.CallInd : Op.JmpInd;
      if (operand(ins, insn, 0, false) !== 8) throw UNSUPPORTED;
      insn.size = 8;
      return;
    case M.Ret:
      insn.op = Op.Ret;
      insn.il = ins.opCount === 1 ? ins.immediate16 : 0;
      return;
    case M.Int:
      insn.op = Op.Int;
      insn.il = ins.immediate8;
      return;
    case M.Invlpg:
      insn.op = Op.Invlpg;
      memory(ins, insn);
      return;
    case M.In:
    case M.Out: {
      insn.op = m === M.In ? Op.In : Op.Out;
      const acc = m === M.In ? 0 : 1;
      const [r, size] = gpr(ins.opRegister(acc));
      if (r !== 0) throw UNSUPPORTED;
      insn.size = size;
      insn.cc = ins.opKind(1 - acc) === OpKind.Register ? 1 : 0;
      insn.il = insn.cc === 1 ? 0 : ins.immediate8;
      return;
    }
    case M.Jrcxz:
    case M.Jecxz:
    case M.Loop:
    case M.Loope:
    case M.Loopne:
      // The count register is RCX, or ECX with a 32-bit address size (67: jecxz, a32 loop).
      insn.op = m === M.Jrcxz || m === M.Jecxz ? Op.Jrcxz : Op.Loop;
      insn.cc = m === M.Loope ? 1 : m === M.Loopne ? 2 : 0;
      insn.a32 = ECX_COUNTED.has(ins.code) ? 1 : 0;
      [insn.tl, insn.th] = halves(ins.nearBranchTarget, 8);
      return;
  }
  const name = M[m];
  if (cc !== 0 && (name.startsWith('Set') || name.startsWith('Cmov'))) {
    binary(ins, insn, name.startsWith('Set') ? Op.Setcc : Op.Cmovcc);
    return;
  }
  if (ins.isJccShortOrNear) {
    insn.op = Op.Jcc;
    [insn.tl, insn.th] = halves(ins.nearBranchTarget, 8);
    return;
  }
  throw UNSUPPORTED;
}

/**
 * Translates one iced-decoded instruction into the interpreter's compact form. Anything outside the
 * supported set (SSE, far branches, 16-bit addressing, ...) becomes Op.Ud, which raises #UD.
 * @see Intel SDM Vol. 2 (instruction set reference)
 */
export function translate(ins: Instruction, insn: Insn): Insn {
  [insn.nl, insn.nh] = halves(ins.nextIP, 8);
  insn.len = ins.length;
  try {
    if (ins.isInvalid) throw UNSUPPORTED;
    translateOperands(ins, insn);
  } catch (e) {
    if (e !== UNSUPPORTED) throw e;
    insn.op = Op.Ud;
  }
  insn.mf = memoryForm(insn);
  return insn;
}
