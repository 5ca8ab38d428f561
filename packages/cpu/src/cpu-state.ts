import { imulOverflow } from './imul-overflow.js';
import { LazyOp, msb, PARITY } from './lazy-flags.js';
import { int32Slot } from './page-arena.js';

const ARITH = 0x8d5;

/**
 * The register file of one CPU: sixteen GPRs as int32 halves (no BigInt on the hot path), RIP, and
 * RFLAGS with lazily evaluated arithmetic flags.
 * @see Intel SDM Vol. 1 §3.4 (basic program execution registers)
 */
export class CpuState {
  /** Low 32 bits of each GPR. */
  readonly R: Int32Array;
  /** High 32 bits of each GPR. */
  readonly H: Int32Array;
  /**
   * Where R and H are in the page arena's memory (R, then H: 64 bytes each, then `exchange`),
   * for code compiled to WebAssembly; -1 when they are arrays of their own.
   */
  readonly regsOffset: number;
  /**
   * What code compiled to WebAssembly takes and leaves besides the registers (it reaches no JS
   * object): the lazy-flag record in its fields' order, RFLAGS, RIP's halves and the instructions it
   * retired (see jit/wasm/wasm-region.ts). Scratch: nothing reads it between two such runs.
   */
  readonly exchange: Int32Array;
  ripLo = 0;
  ripHi = 0;
  /** RFLAGS; its arithmetic bits are stale while `lop` is not LazyOp.None. */
  flags = 2;
  /** Second return value of helpers that produce 64 bits (the high half). */
  vh = 0;

  constructor() {
    const { arrays, offset } = int32Slot([16, 16, 16]);
    this.R = arrays[0];
    this.H = arrays[1];
    this.exchange = arrays[2];
    this.regsOffset = offset;
  }

  /** Folds the lazy state into `flags` and returns the full RFLAGS value. */
  materialize(): number {
    if (this.lop !== LazyOp.None) {
      const bits =
        this.getCF() |
        (this.getPF() << 2) |
        (this.getAF() << 4) |
        (this.getZF() << 6) |
        (this.getSF() << 7) |
        (this.getOF() << 11);
      this.flags = (this.flags & ~ARITH) | bits | 2;
      this.lop = LazyOp.None;
    }
    return this.flags;
  }

  /** Replaces the arithmetic flags selected by `mask` with `bits`. */
  setArith(mask: number, bits: number): void {
    this.flags = (this.materialize() & ~mask) | (bits & mask);
  }

  // @generated-begin: scripts/gen-dispatch.mjs writes the lazy-flag record, flags, conditions and register access from src/semantics/cpu-state-source.ts
  lop = 0;
  lsz = 4;
  ldl = 0;
  ldh = 0;
  lsl = 0;
  lsh = 0;
  lrl = 0;
  lrh = 0;
  lcf = 0;
  lof = 0;

  /** Records a flag-writing result of the add, sub, logic, inc, dec or imul kind (`op`). */
  setLazy(
    op: number,
    size: number,
    dl: number,
    dh: number,
    sl: number,
    sh: number,
    rl: number,
    rh: number,
    cf: number,
  ): void {
    this.lop = op;
    this.lsz = size;
    this.ldl = dl;
    this.ldh = dh;
    this.lsl = sl;
    this.lsh = sh;
    this.lrl = rl;
    this.lrh = rh;
    this.lcf = cf;
  }

  /** Records a result whose CF and OF are known (shifts, multiplies); AF reads 0. */
  setResult(size: number, rl: number, rh: number, cf: number, of: number): void {
    this.lop = 6 /* LazyOp.Result */;
    this.lsz = size;
    this.lrl = rl;
    this.lrh = rh;
    this.lcf = cf;
    this.lof = of;
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  getCF(): number {
    switch (this.lop) {
      case 0 /* LazyOp.None */:
        return this.flags & 1;
      case 1 /* LazyOp.Add */:
        return (this.lsz === 8 && this.lrh !== this.ldh ? ((this.lrh >>> 0) < (this.ldh >>> 0) ? 1 : 0) : ((this.lcf ? (this.lrl >>> 0) <= (this.ldl >>> 0) : (this.lrl >>> 0) < (this.ldl >>> 0)) ? 1 : 0));
      case 2 /* LazyOp.Sub */:
        return (this.lsz === 8 && this.ldh !== this.lsh ? ((this.ldh >>> 0) < (this.lsh >>> 0) ? 1 : 0) : ((this.lcf ? (this.ldl >>> 0) <= (this.lsl >>> 0) : (this.ldl >>> 0) < (this.lsl >>> 0)) ? 1 : 0));
      case 3 /* LazyOp.Logic */:
        return 0;
      case 4 /* LazyOp.Inc */:
      case 5 /* LazyOp.Dec */:
      case 6 /* LazyOp.Result */:
        return this.lcf;
      default:
        return imulOverflow(this.lsz, this.ldl, this.ldh, this.lsl, this.lsh);
    }
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  getZF(): number {
    if (this.lop === 0 /* LazyOp.None */) return (this.flags >> 6) & 1;
    return (this.lrl === 0 && (this.lsz !== 8 || this.lrh === 0) ? 1 : 0);
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  getSF(): number {
    if (this.lop === 0 /* LazyOp.None */) return (this.flags >> 7) & 1;
    return msb(this.lrl, this.lrh, this.lsz);
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  getOF(): number {
    switch (this.lop) {
      case 0 /* LazyOp.None */:
        return (this.flags >> 11) & 1;
      case 1 /* LazyOp.Add */:
      case 4 /* LazyOp.Inc */:
        return (this.lsz === 8 ? (((this.ldh ^ this.lrh) & (this.lsh ^ this.lrh)) >>> 31) : msb(((this.ldl ^ this.lrl) & (this.lsl ^ this.lrl)), 0, this.lsz));
      case 2 /* LazyOp.Sub */:
      case 5 /* LazyOp.Dec */:
        return (this.lsz === 8 ? (((this.ldh ^ this.lsh) & (this.ldh ^ this.lrh)) >>> 31) : msb(((this.ldl ^ this.lsl) & (this.ldl ^ this.lrl)), 0, this.lsz));
      case 3 /* LazyOp.Logic */:
        return 0;
      case 6 /* LazyOp.Result */:
        return this.lof;
      default:
        return imulOverflow(this.lsz, this.ldl, this.ldh, this.lsl, this.lsh);
    }
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  getPF(): number {
    if (this.lop === 0 /* LazyOp.None */) return (this.flags >> 2) & 1;
    return PARITY[this.lrl & 0xff];
  }

  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  getAF(): number {
    switch (this.lop) {
      case 0 /* LazyOp.None */:
        return (this.flags >> 4) & 1;
      case 1 /* LazyOp.Add */:
      case 2 /* LazyOp.Sub */:
      case 4 /* LazyOp.Inc */:
      case 5 /* LazyOp.Dec */:
        return (((this.ldl ^ this.lsl ^ this.lrl) >>> 4) & 1);
      default:
        return 0;
    }
  }

  /**
   * Evaluates an Intel condition code (tttn: O NO B AE E NE BE A S NS P NP L GE LE G).
   * @see Intel SDM Vol. 1 Appendix B (EFLAGS condition codes)
   */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  cond(cc: number): boolean {
    // After cmp/sub at 32/64 bits the signed orders come straight from the operands.
    if (this.lop === 2 /* LazyOp.Sub */ && this.lcf === 0 && this.lsz >= 4 && cc >= 12) {
      const dl = this.ldl;
      const dh = this.ldh;
      const sl = this.lsl;
      const sh = this.lsh;
      if (this.lsz === 8) {
        switch (cc) {
          case 12:
            return (dh < sh || (dh === sh && (dl >>> 0) < (sl >>> 0)));
          case 13:
            return !(dh < sh || (dh === sh && (dl >>> 0) < (sl >>> 0)));
          case 14:
            return ((dh < sh || (dh === sh && (dl >>> 0) < (sl >>> 0))) || (((dl ^ sl) | (dh ^ sh)) === 0));
          default:
            return !((dh < sh || (dh === sh && (dl >>> 0) < (sl >>> 0))) || (((dl ^ sl) | (dh ^ sh)) === 0));
        }
      }
      switch (cc) {
        case 12:
          return (dl < sl);
        case 13:
          return !(dl < sl);
        case 14:
          return ((dl < sl) || (dl === sl));
        default:
          return !((dl < sl) || (dl === sl));
      }
    }
    let r: number;
    switch (cc >> 1) {
      case 0:
        r = this.getOF();
        break;
      case 1:
        r = this.getCF();
        break;
      case 2:
        r = this.getZF();
        break;
      case 3:
        r = (this.getCF() | this.getZF());
        break;
      case 4:
        r = this.getSF();
        break;
      case 5:
        r = this.getPF();
        break;
      case 6:
        r = (this.getSF() ^ this.getOF());
        break;
      default:
        r = (this.getZF() | (this.getSF() ^ this.getOF()));
    }
    return (r ^ (cc & 1)) !== 0;
  }

  /** Reads register `r` at `size` bytes (zero-extended); the high half goes to `vh`. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  getR(r: number, size: number): number {
    switch (size) {
      case 8:
        this.vh = this.H[r];
        return this.R[r];
      case 4:
        this.vh = 0;
        return this.R[r];
      case 2:
        this.vh = 0;
        return (this.R[r] & 0xffff);
      default:
        this.vh = 0;
        return (r < 16 ? (this.R[r] & 0xff) : ((this.R[r - 16] >>> 8) & 0xff));
    }
  }

  /** Writes register `r` with x86 width rules: 32-bit writes zero the upper half, 8/16-bit merge. */
  // biome-ignore format: generated (the formatter would re-wrap what the generator writes)
  setR(r: number, size: number, lo: number, hi: number): void {
    switch (size) {
      case 8:
        this.R[r] = lo;
        this.H[r] = hi;
        return;
      case 4:
        this.R[r] = lo;
        this.H[r] = 0;
        return;
      case 2:
        this.R[r] = (this.R[r] & ~0xffff) | (lo & 0xffff);
        return;
      default:
        if (r < 16) this.R[r] = (this.R[r] & ~0xff) | (lo & 0xff);
        else this.R[r - 16] = (this.R[r - 16] & ~0xff00) | ((lo & 0xff) << 8);
    }
  }
  // @generated-end
}
