import type { FetchInsn } from './fetch-insn.js';
import { nopInsn } from './fetch-insn.js';
import { finalizeFetchInsn } from './finalize-fetch-insn.js';
import { type CodeBuffer, FETCH_INSN_MAX, isGoodName, type ParseContext, probeLogErr } from './parse-context.js';
import { parseProbeArg } from './parse-probe-arg.js';
import { parseProbeArgType } from './parse-probe-arg-type.js';
import type { ProbeArg } from './probe-definition.js';

/** Longest argument name. @see MAX_ARG_NAME_LEN */
export const MAX_ARG_NAME_LEN = 32;
/** Longest argument body (fetcharg and type). @see MAX_ARGSTR_LEN */
export const MAX_ARGSTR_LEN = 63;

/** Field names an argument may not take. @see kernel/trace/trace_probe.c reserved_field_names */
export const RESERVED_FIELD_NAMES: readonly string[] = Object.freeze([
  'common_type',
  'common_flags',
  'common_preempt_count',
  'common_pid',
  'common_tgid',
  '__probe_ip',
  '__probe_ret_ip',
  '__probe_func',
]);

function compileBody(
  body: string,
  ctx: ParseContext,
): { split: ReturnType<typeof parseProbeArgType>; code: FetchInsn[] } {
  if (body.length > MAX_ARGSTR_LEN) probeLogErr(ctx, ctx.offset, 'ARG_TOO_LONG', 'E2BIG');
  if (body.length === 0) probeLogErr(ctx, ctx.offset, 'NO_ARG_BODY');
  const split = parseProbeArgType(body, ctx);
  const buf: CodeBuffer = { code: Array.from({ length: FETCH_INSN_MAX }, nopInsn), pc: 0 };
  buf.code[FETCH_INSN_MAX - 1].op = 'end';
  parseProbeArg(split.body, buf, ctx);
  finalizeFetchInsn(buf, split, ctx);
  const code = buf.code.slice(0, buf.pc + 1).map((insn) => Object.freeze({ ...insn }) as FetchInsn);
  return { split, code: Object.freeze(code) as FetchInsn[] };
}

/**
 * Parses argument `i` (`[NAME=]FETCHARG[:TYPE]`) of a probe whose earlier arguments are `prev`, whose
 * fixed argument area so far is `size` bytes. The caret of name errors is the argument's start; body
 * errors are relative to the body.
 *
 * @see kernel/trace/trace_probe.c traceprobe_parse_probe_arg(), traceprobe_parse_probe_arg_body()
 */
export function traceprobeParseProbeArg(
  prev: readonly ProbeArg[],
  i: number,
  arg: string,
  size: number,
  ctx: ParseContext,
): ProbeArg {
  const eq = arg.indexOf('=');
  let name: string;
  let body: string;
  if (eq >= 0) {
    if (eq > MAX_ARG_NAME_LEN) probeLogErr(ctx, 0, 'ARG_NAME_TOO_LONG');
    if (eq === 0) probeLogErr(ctx, 0, 'NO_ARG_NAME');
    name = arg.slice(0, eq);
    body = arg.slice(eq + 1);
  } else {
    name = `arg${i + 1}`;
    body = arg;
  }
  if (!isGoodName(name)) probeLogErr(ctx, 0, 'BAD_ARG_NAME');
  if (RESERVED_FIELD_NAMES.includes(name) || prev.some((p) => p.name === name)) probeLogErr(ctx, 0, 'USED_ARG_NAME');
  ctx.offset = eq >= 0 ? eq + 1 : 0;
  const { split, code } = compileBody(body, ctx);
  return Object.freeze({
    name,
    comm: body,
    type: split.type,
    typeText: split.typeText,
    count: split.count,
    offset: size,
    dynamic: split.type.isString,
    code,
  });
}
