import { kstrtoul } from './kstrto.js';
import { type CodeBuffer, isDigit, isFunctionEntryCtx, type ParseContext, probeLogErr } from './parse-context.js';

/** Stack words a `$stackN` / `$argN` may reach: THREAD_SIZE (16 KiB) / sizeof(long). @see PARAM_MAX_STACK */
export const PARAM_MAX_STACK = 2048;

/**
 * Compiles a `$` variable (`$retval`, `$stack`, `$stackN`, `$comm`, `$argN`) into `buf.code[buf.pc]`.
 * The caret of every error is `ctx.offset`, which points at the `$`.
 *
 * @see kernel/trace/trace_probe.c parse_probe_vars()
 */
export function parseProbeVars(origArg: string, buf: CodeBuffer, ctx: ParseContext): void {
  const code = buf.code[buf.pc];
  const arg = origArg.slice(1);

  if (arg.startsWith('retval')) {
    if (!ctx.isReturn) probeLogErr(ctx, ctx.offset, 'RETVAL_ON_PROBE');
    code.op = 'retval';
    return;
  }

  if (arg.startsWith('stack')) {
    const rest = arg.slice(5);
    if (rest === '') {
      code.op = 'stackp';
      return;
    }
    if (isDigit(rest[0])) {
      const n = kstrtoul(rest, 10);
      if (n === undefined) probeLogErr(ctx, ctx.offset, 'BAD_VAR');
      if (n > BigInt(PARAM_MAX_STACK)) probeLogErr(ctx, ctx.offset, 'BAD_STACK_NUM');
      code.op = 'stack';
      code.param = Number(n);
      return;
    }
    probeLogErr(ctx, ctx.offset, 'BAD_VAR');
  }

  if (arg === 'comm' || arg === 'COMM') {
    code.op = 'comm';
    return;
  }

  if (arg.startsWith('arg')) {
    const n = kstrtoul(arg.slice(3), 10);
    if (n === undefined) probeLogErr(ctx, ctx.offset, 'BAD_VAR');
    if (n === 0n || n > BigInt(PARAM_MAX_STACK)) probeLogErr(ctx, ctx.offset, 'BAD_ARG_NUM');
    if (isFunctionEntryCtx(ctx)) code.op = 'arg';
    else if (ctx.isReturn) code.op = 'edata';
    else probeLogErr(ctx, ctx.offset, 'NOFENTRY_ARGS');
    code.param = Number(n) - 1;
    return;
  }

  probeLogErr(ctx, ctx.offset, 'BAD_VAR');
}
