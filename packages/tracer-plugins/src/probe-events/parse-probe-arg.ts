import { isPtRegName } from '@int3/kernel';
import { kstrtol, kstrtoul } from './kstrto.js';
import {
  type CodeBuffer,
  FETCH_INSN_MAX,
  isAlphaOrUnderscore,
  isDigit,
  type ParseContext,
  probeLogErr,
} from './parse-context.js';
import { parseProbeVars } from './parse-probe-vars.js';

const END = FETCH_INSN_MAX - 1;

/** Advances the cursor, failing with TOO_MANY_OPS when it reaches the reserved `end` slot. */
function nextInsn(buf: CodeBuffer, ctx: ParseContext): void {
  if (++buf.pc === END) probeLogErr(ctx, ctx.offset, 'TOO_MANY_OPS');
}

/** `\IMM`: a decimal/octal/hex value, or a signed one after `-` or `+`. @see str_to_immediate() */
function strToImmediate(s: string): bigint | undefined {
  if (isDigit(s[0])) return kstrtoul(s, 0);
  if (s[0] === '-') return kstrtol(s, 0);
  if (s[0] === '+') return kstrtol(s.slice(1), 0);
  return undefined;
}

function parseMemory(arg: string, buf: CodeBuffer, ctx: ParseContext): void {
  const code = buf.code;
  if (isDigit(arg[1])) {
    const addr = kstrtoul(arg.slice(1), 0);
    if (addr === undefined) probeLogErr(ctx, ctx.offset, 'BAD_MEM_ADDR');
    code[buf.pc].op = 'imm';
    code[buf.pc].immediate = addr;
  } else if (arg[1] === '+') {
    probeLogErr(ctx, ctx.offset, 'FILE_ON_KPROBE');
  } else {
    // The symbol is resolved at registration; the placeholder keeps its text, the imm gets the address.
    code[buf.pc].op = 'symbol';
    code[buf.pc].data = arg.slice(1);
    nextInsn(buf, ctx);
    code[buf.pc].op = 'imm';
    code[buf.pc].immediate = 0n;
  }
  nextInsn(buf, ctx);
  code[buf.pc].op = 'deref';
  code[buf.pc].offset = 0n;
}

function parseDeref(orig: string, buf: CodeBuffer, ctx: ParseContext): void {
  let arg = orig;
  let op: 'deref' | 'uderef' = 'deref';
  if (arg[1] === 'u') {
    op = 'uderef';
    arg = arg[0] + arg.slice(2);
  }
  if (arg[0] === '+') arg = arg.slice(1);
  const brace = arg.indexOf('(');
  if (brace < 0) probeLogErr(ctx, ctx.offset, 'DEREF_NEED_BRACE');
  const offset = kstrtol(arg.slice(0, brace), 0);
  if (offset === undefined) probeLogErr(ctx, ctx.offset, 'BAD_DEREF_OFFS');
  // The kernel advances by the text it kept: for `+uOFFS(` that is one short of what was written.
  ctx.offset += brace + 1 + (arg[0] !== '-' ? 1 : 0);
  const inner = arg.slice(brace + 1);
  const close = inner.lastIndexOf(')');
  if (close < 0) probeLogErr(ctx, ctx.offset + inner.length, 'DEREF_OPEN_BRACE');
  // Linux's strrchr() cuts the text after the last `)` and parses on, so `+0(%ax)+10` reads `+0(%ax)`;
  // kprobe_args_syntax.tc lists it among the bad args (its `! echo` check cannot fail under `set -e`).
  // A definition must not mean less than it says: the trailing text is refused.
  if (close !== inner.length - 1) probeLogErr(ctx, ctx.offset + close + 1, 'BAD_FETCH_ARG');
  const curOffs = ctx.offset;
  parseProbeArg(inner.slice(0, close), buf, ctx);
  ctx.offset = curOffs;
  const last = buf.code[buf.pc].op;
  if (last === 'comm' || last === 'data') probeLogErr(ctx, ctx.offset, 'COMM_CANT_DEREF');
  nextInsn(buf, ctx);
  buf.code[buf.pc].op = op;
  buf.code[buf.pc].offset = offset;
}

function parseImmediate(arg: string, buf: CodeBuffer, ctx: ParseContext): void {
  const code = buf.code[buf.pc];
  if (arg[1] === '"') {
    const str = arg.slice(2);
    // An empty body reads the opening quote as the closing one, as the kernel's str[len - 1] does.
    if (arg[arg.length - 1] !== '"') probeLogErr(ctx, ctx.offset + 2 + str.length, 'IMMSTR_NO_CLOSE');
    code.op = 'data';
    code.data = str.slice(0, Math.max(0, str.length - 1));
    return;
  }
  const imm = strToImmediate(arg.slice(1));
  if (imm === undefined) probeLogErr(ctx, ctx.offset + 1, 'BAD_IMM');
  code.op = 'imm';
  code.immediate = BigInt.asUintN(64, imm);
}

/**
 * Compiles one fetcharg body (type already split off) into `buf`, recursing into dereferences. Errors
 * point at `ctx.offset`, the start of the (sub)expression being parsed.
 *
 * @see kernel/trace/trace_probe.c parse_probe_arg()
 */
export function parseProbeArg(arg: string, buf: CodeBuffer, ctx: ParseContext): void {
  switch (arg[0]) {
    case '$':
      parseProbeVars(arg, buf, ctx);
      break;
    case '%':
      if (!isPtRegName(arg.slice(1))) probeLogErr(ctx, ctx.offset, 'BAD_REG_NAME');
      buf.code[buf.pc].op = 'reg';
      buf.code[buf.pc].data = arg.slice(1);
      break;
    case '@':
      parseMemory(arg, buf, ctx);
      break;
    case '+':
    case '-':
      parseDeref(arg, buf, ctx);
      break;
    case '\\':
      parseImmediate(arg, buf, ctx);
      break;
    default:
      // A bare identifier would be a BTF argument; this kernel has no BTF.
      if (isAlphaOrUnderscore(arg[0])) probeLogErr(ctx, ctx.offset, 'NOSUP_BTFARG', 'EOPNOTSUPP');
  }
  if (buf.code[buf.pc].op === 'nop') probeLogErr(ctx, ctx.offset, 'BAD_FETCH_ARG');
}
