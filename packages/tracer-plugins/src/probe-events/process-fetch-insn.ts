import type { FetchSource } from './fetch-source.js';
import type { FetchStep } from './fetch-step.js';

/** Longest string stored, with its NUL. @see MAX_STRING_SIZE (PATH_MAX) */
export const MAX_STRING_SIZE = 4096;

/**
 * Where one record is being built: the storage (a ring-buffer page or a scratch buffer), where the
 * record starts in it, and the next free byte of its dynamic area.
 */
export interface RecordCursor {
  buf: Uint8Array;
  view: DataView;
  /** Offset of the record's first byte in `buf`; `__data_loc` offsets are relative to it. */
  base: number;
  /** Next free dynamic-data byte, as an index into `buf`. */
  dyn: number;
  /** Only measure the dynamic data (`__get_data_size`): nothing is written. */
  measure: boolean;
}

// The value being fetched, its previous value (string arrays step from it), an address, and a word.
const V = new Uint32Array(2);
const L = new Uint32Array(2);
const A = new Uint32Array(2);
const WORD = new Uint8Array(8);
const WORD_VIEW = new DataView(WORD.buffer);
const encoder = new TextEncoder();

/** out = hi:lo + bHi:bLo (mod 2^64); the inputs are unsigned 32-bit halves. */
function add(out: Uint32Array, lo: number, hi: number, bLo: number, bHi: number): void {
  const s = lo + bLo;
  out[0] = s;
  out[1] = hi + bHi + (s > 0xffffffff ? 1 : 0);
}

function fetchBase(step: FetchStep, src: FetchSource): void {
  switch (step.op) {
    case 'reg':
    case 'stackp':
    case 'retval':
      src.loadRegister(step.reg, V);
      return;
    case 'arg':
      // regs_get_kernel_argument(): six registers, then the stack above the return address.
      if (step.reg >= 0) src.loadRegister(step.reg, V);
      else src.loadStackNth(step.param - 5, V);
      return;
    case 'stack':
      src.loadStackNth(step.param, V);
      return;
    case 'edata':
      src.loadEntryArg(step.param, V);
      return;
    default:
      V[0] = step.immLo;
      V[1] = step.immHi;
  }
}

/** Copies `bytes` (cut to fit, NUL added) into the dynamic area; the length stored. */
function copyBytes(bytes: Uint8Array, cur: RecordCursor): number {
  const n = Math.min(bytes.length, MAX_STRING_SIZE - 1);
  if (!cur.measure) {
    const buf = cur.buf;
    const at = cur.dyn;
    for (let i = 0; i < n; i++) buf[at + i] = bytes[i];
    buf[at + n] = 0;
  }
  return n + 1;
}

/** Stores `text` as UTF-8 (ASCII without allocating); the length stored including the NUL. */
function copyText(text: string, cur: RecordCursor): number {
  const n = Math.min(text.length, MAX_STRING_SIZE - 1);
  for (let i = 0; i < n; i++) if (text.charCodeAt(i) >= 0x80) return copyBytes(encoder.encode(text), cur);
  if (!cur.measure) {
    const buf = cur.buf;
    const at = cur.dyn;
    for (let i = 0; i < n; i++) buf[at + i] = text.charCodeAt(i);
    buf[at + n] = 0;
  }
  return n + 1;
}

/** Stores one string and its `__data_loc` word at `dest`; returns the dynamic bytes used. */
function storeString(step: FetchStep, first: FetchStep, src: FetchSource, cur: RecordCursor, dest: number): number {
  let len: number;
  if (first.op === 'comm') len = copyText(src.comm, cur);
  else if (first.op === 'data') len = copyBytes(first.text ?? WORD.subarray(0, 0), cur);
  else {
    add(A, V[0], V[1], step.offLo, step.offHi);
    if (step.op === 'st_symstr') {
      const a = (BigInt(A[1]) << 32n) | BigInt(A[0]);
      len = copyText(src.symbolize?.(a) ?? `0x${a.toString(16)}`, cur);
    } else {
      len = src.copyString(
        A[0],
        A[1],
        step.op === 'st_ustring',
        cur.measure ? null : cur.buf,
        cur.dyn,
        MAX_STRING_SIZE,
      );
    }
  }
  // A fault stores an empty location, which prints as "(fault)".
  const used = Math.max(len, 0);
  if (!cur.measure) cur.view.setUint32(dest, ((used << 16) | (cur.dyn - cur.base)) >>> 0, true);
  cur.dyn += used;
  return used;
}

function storeRaw(cur: RecordCursor, dest: number, size: number): void {
  const view = cur.view;
  if (size === 8) {
    view.setUint32(dest, V[0], true);
    view.setUint32(dest + 4, V[1], true);
  } else if (size === 4) view.setUint32(dest, V[0], true);
  else if (size === 2) view.setUint16(dest, V[0] & 0xffff, true);
  else cur.buf[dest] = V[0] & 0xff;
}

function applyBitfield(cur: RecordCursor, dest: number, bf: FetchStep): void {
  const bits = BigInt(bf.basesize * 8);
  const mask = (1n << bits) - 1n;
  const view = cur.view;
  let v: bigint;
  if (bf.basesize === 8) v = view.getBigUint64(dest, true);
  else if (bf.basesize === 4) v = BigInt(view.getUint32(dest, true));
  else if (bf.basesize === 2) v = BigInt(view.getUint16(dest, true));
  else v = BigInt(cur.buf[dest]);
  v = ((v << BigInt(bf.lshift)) & mask) >> BigInt(bf.rshift);
  if (bf.basesize === 8) view.setBigUint64(dest, v, true);
  else if (bf.basesize === 4) view.setUint32(dest, Number(v), true);
  else if (bf.basesize === 2) view.setUint16(dest, Number(v), true);
  else cur.buf[dest] = Number(v);
}

/** Reads the word at V + offset into V; false on a fault. */
function deref(step: FetchStep, src: FetchSource): boolean {
  add(A, V[0], V[1], step.offLo, step.offHi);
  if (!src.copyMemory(A[0], A[1], 8, step.op === 'uderef', WORD, 0)) return false;
  V[0] = WORD_VIEW.getUint32(0, true);
  V[1] = WORD_VIEW.getUint32(4, true);
  return true;
}

/**
 * Runs one argument's program at a hit and stores its value at `buf[dest]` (an absolute index): fetch
 * the base value, dereference, store as the type, apply a bitfield, loop for arrays. Returns the
 * dynamic bytes used (strings), 0 otherwise. A failed dereference stops the argument, leaving the
 * field as it was (zero). With `cur.measure` it only adds up the string bytes, as the kernel's
 * `__get_data_size()` runs the same program with a NULL destination before reserving the record.
 *
 * @see kernel/trace/trace_kprobe.c process_fetch_insn()
 * @see kernel/trace/trace_probe_tmpl.h process_fetch_insn_bottom(), __get_data_size()
 */
export function processFetchInsn(
  code: readonly FetchStep[],
  src: FetchSource,
  cur: RecordCursor,
  dest: number,
): number {
  let pc = 0;
  if (code[pc].op === 'symbol') pc++;
  const first = code[pc];
  if (first.op !== 'comm' && first.op !== 'data') fetchBase(first, src);
  pc++;
  L[0] = V[0];
  L[1] = V[1];
  let total = 0;
  let i = 0;
  for (;;) {
    // Stage 2: dereference.
    while (code[pc].op === 'deref' || code[pc].op === 'uderef') {
      L[0] = V[0];
      L[1] = V[1];
      if (!deref(code[pc], src)) return total;
      pc++;
    }
    const s3 = pc;
    for (;;) {
      // Stage 3: store; stage 4: bitfield.
      const st = code[pc];
      const op = st.op;
      if (op === 'st_string' || op === 'st_ustring' || op === 'st_symstr') {
        total += storeString(st, first, src, cur, dest);
      } else if (!cur.measure) {
        if (op === 'st_raw') storeRaw(cur, dest, st.size);
        else {
          add(A, V[0], V[1], st.offLo, st.offHi);
          // A fault leaves the field zero.
          src.copyMemory(A[0], A[1], st.size, op === 'st_umem', cur.buf, dest);
        }
      }
      pc++;
      if (code[pc].op === 'mod_bf') {
        if (!cur.measure) applyBitfield(cur, dest, code[pc]);
        pc++;
      }
      const loop = code[pc];
      if (loop.op !== 'lp_array' || ++i >= loop.param) return total;
      pc = s3;
      dest += st.size;
      if (op === 'st_string' || op === 'st_ustring') break;
      add(V, V[0], V[1], st.size, 0);
    }
    // An array of strings: the next element is the next pointer after the last dereferenced one.
    pc = s3 - 1;
    if (code[pc].op !== 'deref' && code[pc].op !== 'uderef') return total;
    add(V, L[0], L[1], 8, 0);
  }
}
