import { type FetchType, findFetchType } from './fetch-type.js';
import { kstrtouint } from './kstrto.js';
import { type ParseContext, probeLogErr } from './parse-context.js';

/** Longest array `TYPE[N]`. @see MAX_ARRAY_LEN */
export const MAX_ARRAY_LEN = 64;

/** A fetcharg split from its `:TYPE[N]` suffix. */
export interface SplitArgType {
  /** The fetcharg without the type. */
  readonly body: string;
  /** The type name without `[N]`, or undefined when no `:` was given. */
  readonly typeText: string | undefined;
  /** Offset of the type name within the argument body (0 when none). */
  readonly typeOffset: number;
  readonly type: FetchType;
  readonly count: number;
}

/**
 * Splits `FETCHARG[:TYPE[[N]]]` at the first `:` and resolves the type: array syntax and size, the
 * string-only sources (`$comm`, `\"str"`), then the type name.
 *
 * @see kernel/trace/trace_probe.c parse_probe_arg_type()
 */
export function parseProbeArgType(arg: string, ctx: ParseContext): SplitArgType {
  const colon = arg.indexOf(':');
  let typeText: string | undefined;
  let count = 0;
  if (colon >= 0) {
    typeText = arg.slice(colon + 1);
    const open = typeText.indexOf('[');
    if (open >= 0) {
      const numAt = colon + 1 + open + 1;
      const inside = typeText.slice(open + 1);
      typeText = typeText.slice(0, open);
      const close = inside.indexOf(']');
      if (close < 0) probeLogErr(ctx, ctx.offset + numAt + inside.length, 'ARRAY_NO_CLOSE');
      if (close !== inside.length - 1) probeLogErr(ctx, ctx.offset + numAt + close + 1, 'BAD_ARRAY_SUFFIX');
      const n = kstrtouint(inside.slice(0, close), 0);
      if (!n) probeLogErr(ctx, ctx.offset + numAt, 'BAD_ARRAY_NUM');
      if (n > MAX_ARRAY_LEN) probeLogErr(ctx, ctx.offset + numAt, 'ARRAY_TOO_BIG');
      count = n;
    }
  }
  const body = colon >= 0 ? arg.slice(0, colon) : arg;
  const typeOffset = colon >= 0 ? colon + 1 : 0;
  let type: FetchType | undefined;
  if (body === '$comm' || body === '$COMM' || body.startsWith('\\"')) {
    if (count || (typeText !== undefined && typeText !== 'string')) {
      probeLogErr(ctx, ctx.offset + typeOffset, 'NEED_STRING_TYPE');
    }
    type = findFetchType('string');
  } else {
    type = findFetchType(typeText);
  }
  if (!type) probeLogErr(ctx, ctx.offset + typeOffset, 'BAD_TYPE');
  return { body, typeText, typeOffset, type, count };
}
