import type { FetchOp } from './fetch-insn.js';
import { simpleStrtoul } from './kstrto.js';
import { type CodeBuffer, type ParseContext, probeLogErr } from './parse-context.js';
import type { SplitArgType } from './parse-probe-arg-type.js';

const SYMSTR_SOURCES: ReadonlySet<FetchOp | 'nop'> = new Set(['reg', 'stack', 'retval', 'arg', 'deref']);
const STRING_SOURCES: ReadonlySet<FetchOp | 'nop'> = new Set(['deref', 'uderef', 'imm', 'comm', 'data']);

/** Advances to a slot that must still be blank, else TOO_MANY_OPS. */
function claimNext(buf: CodeBuffer, ctx: ParseContext, errno: 'EINVAL' | 'E2BIG'): void {
  buf.pc++;
  if (buf.code[buf.pc].op !== 'nop') probeLogErr(ctx, ctx.offset, 'TOO_MANY_OPS', errno);
}

/**
 * Parses `b<width>@<offset>/<container>` into a bitfield instruction after the store; false when malformed.
 *
 * @see kernel/trace/trace_probe.c __parse_bitfield_probe_arg()
 */
function parseBitfield(bf: string, size: number, buf: CodeBuffer): boolean {
  if (bf[0] !== 'b') return true;
  const w = simpleStrtoul(bf, 1, 0);
  if (w.value === 0n || bf[w.end] !== '@') return false;
  const o = simpleStrtoul(bf, w.end + 1, 0);
  if (o.end === w.end + 1 || bf[o.end] !== '/') return false;
  buf.pc++;
  const code = buf.code[buf.pc];
  if (code.op !== 'nop') return false;
  const bits = BigInt(size * 8);
  code.op = 'mod_bf';
  code.lshift = Number(bits - (w.value + o.value));
  code.rshift = Number(bits - w.value);
  code.basesize = size;
  return bits >= w.value + o.value;
}

/**
 * Turns the parsed fetch into a store for the argument's type: strings replace the final dereference
 * (or add a store after an address source), memory fetches store from memory, the rest store the raw
 * value; then the bitfield modifier, the array loop and `end`.
 *
 * @see kernel/trace/trace_probe.c finalize_fetch_insn()
 */
export function finalizeFetchInsn(buf: CodeBuffer, split: SplitArgType, ctx: ParseContext): void {
  const { type, count, typeText, typeOffset } = split;
  const code = buf.code;
  const lastOp = code[buf.pc].op;
  if (type.isString) {
    const symstr = type.name === 'symstr';
    if (symstr ? !SYMSTR_SOURCES.has(lastOp) : !STRING_SOURCES.has(lastOp)) {
      probeLogErr(ctx, ctx.offset + typeOffset, symstr ? 'BAD_SYMSTRING' : 'BAD_STRING');
    }
    if (symstr || lastOp === 'imm' || lastOp === 'comm' || lastOp === 'data' || count) claimNext(buf, ctx, 'EINVAL');
    const st = code[buf.pc];
    if (type.name === 'ustring' || st.op === 'uderef') st.op = 'st_ustring';
    else if (symstr) st.op = 'st_symstr';
    else st.op = 'st_string';
    st.size = type.size;
  } else if (lastOp === 'deref' || lastOp === 'uderef') {
    code[buf.pc].op = lastOp === 'deref' ? 'st_mem' : 'st_umem';
    code[buf.pc].size = type.size;
  } else {
    claimNext(buf, ctx, 'E2BIG');
    code[buf.pc].op = 'st_raw';
    code[buf.pc].size = type.size;
  }
  const store = code[buf.pc];

  if (typeText !== undefined && !parseBitfield(typeText, type.size, buf)) {
    probeLogErr(ctx, ctx.offset + typeOffset, 'BAD_BITFIELD');
  }

  if (count) {
    if (store.op !== 'st_mem' && store.op !== 'st_string' && store.op !== 'st_ustring') {
      probeLogErr(ctx, ctx.offset + typeOffset, 'BAD_STRING');
    }
    claimNext(buf, ctx, 'E2BIG');
    code[buf.pc].op = 'lp_array';
    code[buf.pc].param = count;
  }
  buf.pc++;
  code[buf.pc].op = 'end';
}
