import type { FetchContext } from './fetch-context.js';
import type { FetchInsn } from './fetch-insn.js';
import { X86_64_ARG_REGS } from './x86-registers.js';

/** Longest string stored, with its NUL. @see MAX_STRING_SIZE (PATH_MAX) */
export const MAX_STRING_SIZE = 4096;
const U64 = (1n << 64n) - 1n;
const CHUNK = 64;

/** Where one record is being built: the buffer, and the next free byte of its dynamic area. */
export interface RecordCursor {
  buf: Uint8Array;
  view: DataView;
  /** Next free dynamic-data byte, relative to the record start (offset 0 of `buf`). */
  dyn: number;
}

const encoder = new TextEncoder();
const word = new DataView(new ArrayBuffer(8));

function readWord(ctx: FetchContext, addr: bigint, user: boolean): bigint | undefined {
  const bytes = user ? ctx.readUser(addr, 8) : ctx.readKernel(addr, 8);
  if (!bytes || bytes.length < 8) return undefined;
  for (let i = 0; i < 8; i++) word.setUint8(i, bytes[i]);
  return word.getBigUint64(0, true);
}

/** `regs_get_kernel_argument()`: six registers, then the stack above the return address. */
function functionArg(ctx: FetchContext, n: number): bigint {
  return n < X86_64_ARG_REGS.length ? ctx.readRegister(X86_64_ARG_REGS[n]) : ctx.kernelStackNth(n - 5);
}

function fetchBase(insn: FetchInsn, ctx: FetchContext): bigint {
  switch (insn.op) {
    case 'reg':
      return ctx.readRegister(insn.data ?? '');
    case 'stack':
      return ctx.kernelStackNth(insn.param);
    case 'stackp':
      return ctx.readRegister('sp');
    case 'retval':
      return ctx.readRegister('ax');
    case 'arg':
      return functionArg(ctx, insn.param);
    case 'edata':
      return ctx.entryArgs?.[insn.param] ?? 0n;
    default:
      return insn.immediate;
  }
}

function ensure(cur: RecordCursor, need: number): void {
  if (need <= cur.buf.length) return;
  const next = new Uint8Array(Math.max(need, cur.buf.length * 2));
  next.set(cur.buf);
  cur.buf = next;
  cur.view = new DataView(next.buffer);
}

/** Copies a NUL-terminated string from memory into the dynamic area; its length with NUL, or -1 on a fault. */
function copyString(ctx: FetchContext, addr: bigint, user: boolean, cur: RecordCursor): number {
  let len = 0;
  ensure(cur, cur.dyn + MAX_STRING_SIZE);
  while (len < MAX_STRING_SIZE) {
    const a = (addr + BigInt(len)) & U64;
    const n = Math.min(CHUNK - Number(a & BigInt(CHUNK - 1)), MAX_STRING_SIZE - len);
    const bytes = user ? ctx.readUser(a, n) : ctx.readKernel(a, n);
    if (!bytes) return -1;
    for (let i = 0; i < n; i++) {
      cur.buf[cur.dyn + len] = bytes[i];
      len++;
      if (bytes[i] === 0) return len;
    }
  }
  cur.buf[cur.dyn + MAX_STRING_SIZE - 1] = 0;
  return MAX_STRING_SIZE;
}

function copyText(text: string, cur: RecordCursor): number {
  ensure(cur, cur.dyn + text.length * 3 + 1);
  const { written } = encoder.encodeInto(text, cur.buf.subarray(cur.dyn, cur.dyn + MAX_STRING_SIZE - 1));
  cur.buf[cur.dyn + written] = 0;
  return written + 1;
}

/** Stores one string at `dest` (its `__data_loc` word) and returns the dynamic bytes used. */
function storeString(
  insn: FetchInsn,
  val: bigint,
  text: string | undefined,
  ctx: FetchContext,
  cur: RecordCursor,
  dest: number,
): number {
  let len: number;
  if (text !== undefined) len = copyText(text, cur);
  else if (insn.op === 'st_symstr') {
    const a = (val + insn.offset) & U64;
    len = copyText(ctx.symbolize?.(a) ?? `0x${a.toString(16)}`, cur);
  } else len = copyString(ctx, (val + insn.offset) & U64, insn.op === 'st_ustring', cur);
  // A fault stores an empty location, which prints as "(fault)".
  const used = Math.max(len, 0);
  cur.view.setUint32(dest, ((used << 16) | cur.dyn) >>> 0, true);
  cur.dyn += used;
  return used;
}

function storeRaw(cur: RecordCursor, dest: number, size: number, val: bigint): void {
  if (size === 8) cur.view.setBigUint64(dest, val & U64, true);
  else if (size === 4) cur.view.setUint32(dest, Number(val & 0xffffffffn), true);
  else if (size === 2) cur.view.setUint16(dest, Number(val & 0xffffn), true);
  else cur.buf[dest] = Number(val & 0xffn);
}

function storeMem(ctx: FetchContext, cur: RecordCursor, dest: number, insn: FetchInsn, val: bigint): void {
  const addr = (val + insn.offset) & U64;
  const bytes = insn.op === 'st_umem' ? ctx.readUser(addr, insn.size) : ctx.readKernel(addr, insn.size);
  // A fault leaves the field zero.
  if (bytes) for (let i = 0; i < insn.size; i++) cur.buf[dest + i] = bytes[i];
}

function applyBitfield(cur: RecordCursor, dest: number, bf: FetchInsn): void {
  const bits = BigInt(bf.basesize * 8);
  const mask = (1n << bits) - 1n;
  let v = bf.basesize === 8 ? cur.view.getBigUint64(dest, true) : BigInt(readSmall(cur, dest, bf.basesize));
  v = ((v << BigInt(bf.lshift)) & mask) >> BigInt(bf.rshift);
  storeRaw(cur, dest, bf.basesize, v);
}

function readSmall(cur: RecordCursor, dest: number, size: number): number {
  if (size === 4) return cur.view.getUint32(dest, true);
  if (size === 2) return cur.view.getUint16(dest, true);
  return cur.buf[dest];
}

/**
 * Runs one argument's program at a hit and stores its value at `dest` in the record: fetch the base
 * value, dereference, store as the type, apply a bitfield, loop for arrays. Returns the dynamic bytes
 * used (strings), 0 otherwise. A failed dereference stops the argument, leaving the field zero.
 *
 * @see kernel/trace/trace_kprobe.c process_fetch_insn()
 * @see kernel/trace/trace_probe_tmpl.h process_fetch_insn_bottom()
 */
export function processFetchInsn(
  code: readonly FetchInsn[],
  ctx: FetchContext,
  cur: RecordCursor,
  dest: number,
): number {
  let pc = 0;
  if (code[pc].op === 'symbol') pc++;
  const first = code[pc];
  const text = first.op === 'comm' ? ctx.comm : first.op === 'data' ? (first.data ?? '') : undefined;
  let val = text === undefined ? fetchBase(first, ctx) : 0n;
  pc++;
  let lval = val;
  let total = 0;
  let i = 0;
  for (;;) {
    // Stage 2: dereference.
    while (code[pc].op === 'deref' || code[pc].op === 'uderef') {
      lval = val;
      const next = readWord(ctx, (val + code[pc].offset) & U64, code[pc].op === 'uderef');
      if (next === undefined) return total;
      val = next;
      pc++;
    }
    const s3 = pc;
    for (;;) {
      // Stage 3: store; stage 4: bitfield.
      const st = code[pc];
      let used = 0;
      if (st.op === 'st_raw') storeRaw(cur, dest, st.size, val);
      else if (st.op === 'st_mem' || st.op === 'st_umem') storeMem(ctx, cur, dest, st, val);
      else used = storeString(st, val, text, ctx, cur, dest);
      pc++;
      if (code[pc].op === 'mod_bf') applyBitfield(cur, dest, code[pc++]);
      total += used;
      const loop = code[pc];
      if (loop.op !== 'lp_array' || ++i >= loop.param) return total;
      pc = s3;
      dest += st.size;
      if (st.op === 'st_string' || st.op === 'st_ustring') break;
      val += BigInt(st.size);
    }
    // An array of strings: the next element is the next pointer after the last dereferenced one.
    pc = s3 - 1;
    if (code[pc].op !== 'deref' && code[pc].op !== 'uderef') return total;
    val = lval + 8n;
  }
}
