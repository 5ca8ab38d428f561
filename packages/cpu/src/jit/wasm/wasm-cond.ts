import { I32, W, WasmFunction } from './wasm-writer.js';

/** The index of the module's imported imulOverflow (its first function). */
export const IMUL_OVERFLOW = 0;

/**
 * The module's `cond(cc, op, size, dl, dh, sl, sh, rl, rh, cf, of, rflags)`: condition `cc` of the
 * lazy-flag record (CpuState.cond's meaning, from the same formulas as its getCF, getZF, getSF,
 * getOF and getPF), imulOverflow imported for an imul's record.
 */
export function condFunction(): WasmFunction {
  const f = new WasmFunction([I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, I32], [I32]);
  const [cc, op, size, dl, dh, sl, sh, rl, rh, cf, of, flags] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const CF = f.local(I32);
  const ZF = f.local(I32);
  const SF = f.local(I32);
  const OF = f.local(I32);
  const PF = f.local(I32);
  const t = f.local(I32);
  /** Pushes msb of the i32 in `t` at `size` (1, 2 or 4 bytes: bit 7, 15 or 31; 8 reads the high half elsewhere). */
  const msbT = () => {
    f.get(t).get(size).i32(3).op(W.i32Shl).i32(1).op(W.i32Sub).op(W.i32ShrU).i32(1).op(W.i32And);
  };
  const isOp = (k: number) => f.get(op).i32(k).op(W.i32Eq);
  const wide = () => f.get(size).i32(8).op(W.i32Eq);
  // None: the flags as they are.
  isOp(0).open(W.if);
  f.get(flags).i32(1).op(W.i32And).set(CF);
  f.get(flags).i32(6).op(W.i32ShrU).i32(1).op(W.i32And).set(ZF);
  f.get(flags).i32(7).op(W.i32ShrU).i32(1).op(W.i32And).set(SF);
  f.get(flags).i32(11).op(W.i32ShrU).i32(1).op(W.i32And).set(OF);
  f.get(flags).i32(2).op(W.i32ShrU).i32(1).op(W.i32And).set(PF);
  f.op(W.else);
  // ZF, SF, PF from the result.
  f.get(rl).op(W.i32Eqz).get(size).i32(8).op(W.i32Ne).get(rh).op(W.i32Eqz).op(W.i32Or).op(W.i32And).set(ZF);
  wide().open(W.if);
  f.get(rh).i32(31).op(W.i32ShrU).set(SF);
  f.op(W.else);
  f.get(rl).set(t);
  msbT();
  f.set(SF);
  f.op(W.end);
  f.get(rl).i32(0xff).op(W.i32And).op(W.i32Popcnt).i32(1).op(W.i32And).i32(1).op(W.i32Xor).set(PF);
  // CF and OF by kind.
  /**
   * CF = a below b, unsigned: by the high halves at 8 bytes where they differ, else by the low
   * halves, at or below when the record has a carry in.
   */
  const below = (al: number, ah: number, bl: number, bh: number) => {
    wide().get(ah).get(bh).op(W.i32Ne).op(W.i32And).open(W.if);
    f.get(ah).get(bh).op(W.i32LtU).set(CF);
    f.op(W.else);
    f.get(al).get(bl).op(W.i32LeU).get(al).get(bl).op(W.i32LtU).get(cf).op(W.select).set(CF);
    f.op(W.end);
  };
  // Add: the result below the first operand; sub: the first operand below the second.
  isOp(1).open(W.if);
  below(rl, rh, dl, dh);
  f.op(W.else);
  isOp(2).open(W.if);
  below(dl, dh, sl, sh);
  f.op(W.else);
  isOp(3).open(W.if);
  f.i32(0).set(CF);
  f.op(W.else);
  isOp(7).open(W.if);
  f.get(size).get(dl).get(dh).get(sl).get(sh).call(IMUL_OVERFLOW).set(CF);
  f.op(W.else);
  f.get(cf).set(CF);
  f.op(W.end).op(W.end).op(W.end).op(W.end);
  /**
   * OF = the sign bit of (a ^ b) & (c ^ e), of the halves (`*h` at 8 bytes, else `*l` at the
   * record's size).
   */
  const overflow = (al: number, ah: number, bl: number, bh: number, cl: number, ch: number, el: number, eh: number) => {
    wide().open(W.if);
    f.get(ah).get(bh).op(W.i32Xor).get(ch).get(eh).op(W.i32Xor).op(W.i32And).i32(31).op(W.i32ShrU).set(OF);
    f.op(W.else);
    f.get(al).get(bl).op(W.i32Xor).get(cl).get(el).op(W.i32Xor).op(W.i32And).set(t);
    msbT();
    f.set(OF);
    f.op(W.end);
  };
  // OF. Add (and inc): both operands' signs differ from the result's; sub (and dec): the operands'
  // signs differ, and the result's differs from the first's.
  isOp(1).get(op).i32(4).op(W.i32Eq).op(W.i32Or).open(W.if);
  overflow(dl, dh, rl, rh, sl, sh, rl, rh);
  f.op(W.else);
  isOp(2).get(op).i32(5).op(W.i32Eq).op(W.i32Or).open(W.if);
  overflow(dl, dh, sl, sh, dl, dh, rl, rh);
  f.op(W.else);
  isOp(6).open(W.if);
  f.get(of).set(OF);
  f.op(W.else);
  isOp(7).open(W.if);
  f.get(CF).set(OF);
  f.op(W.else);
  f.i32(0).set(OF);
  f.op(W.end).op(W.end).op(W.end).op(W.end);
  f.op(W.end); // the record's kinds
  // The condition: tttn.
  const pick = [
    () => f.get(OF),
    () => f.get(CF),
    () => f.get(ZF),
    () => f.get(CF).get(ZF).op(W.i32Or),
    () => f.get(SF),
    () => f.get(PF),
    () => f.get(SF).get(OF).op(W.i32Xor),
    () => f.get(ZF).get(SF).get(OF).op(W.i32Xor).op(W.i32Or),
  ];
  f.open(W.block);
  for (let k = 0; k < 8; k++) f.open(W.block);
  f.get(cc).i32(1).op(W.i32ShrU).brTable([0, 1, 2, 3, 4, 5, 6, 7], 7);
  for (let k = 0; k < 8; k++) {
    f.op(W.end);
    pick[k]();
    f.get(cc).i32(1).op(W.i32And).op(W.i32Xor).op(W.return);
  }
  f.op(W.end);
  f.i32(0);
  return f;
}
