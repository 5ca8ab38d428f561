import { defaultEventName, KPROBE_EVENT_SYSTEM } from './default-event-name.js';
import { kstrtol, kstrtouint, kstrtoul } from './kstrto.js';
import { isDigit, isFunctionEntryCtx, type ParseContext, probeLogErr } from './parse-context.js';
import { traceprobeParseEventName } from './parse-event-name.js';
import type { ProbeArg, ProbeDefinition, ProbeResolver } from './probe-definition.js';
import { ProbeParseError } from './probe-parse-error.js';
import { catchProbeParseError, type ProbeParseResult } from './probe-parse-result.js';
import { traceprobeParseProbeArg } from './traceprobe-parse-probe-arg.js';

/** Largest `r<N>`. @see KRETPROBE_MAXACTIVE_MAX */
export const KRETPROBE_MAXACTIVE_MAX = 4096;
/** Most arguments a probe may have. @see MAX_TRACE_ARGS */
export const MAX_TRACE_ARGS = 128;

const UINT_MAX = 0xffffffffn;

/** A rejection the kernel does not log (`-ECANCELED`, reported as `-EINVAL`). */
function cancel(argv: readonly string[]): never {
  throw new ProbeParseError(undefined, 'EINVAL', argv, { index: 0, offset: 0 });
}

interface ProbePlace {
  symbol: string | undefined;
  offset: number;
  address: bigint | undefined;
  isReturn: boolean;
  functionEntry: boolean;
}

function parseMaxactive(argv: readonly string[], isReturn: boolean, colon: number, ctx: ParseContext): number {
  if (!isDigit(argv[0][1])) return 0;
  if (!isReturn) probeLogErr(ctx, 1, 'BAD_MAXACT_TYPE');
  const len = colon >= 0 ? colon - 1 : argv[0].length - 1;
  if (len > 63) probeLogErr(ctx, 1, 'BAD_MAXACT');
  const n = kstrtouint(argv[0].slice(1, 1 + len), 0);
  if (!n) probeLogErr(ctx, 1, 'BAD_MAXACT');
  if (n > KRETPROBE_MAXACTIVE_MAX) probeLogErr(ctx, 1, 'MAXACT_TOO_BIG');
  return n;
}

function parsePlace(
  argv: readonly string[],
  isReturn: boolean,
  resolver: ProbeResolver,
  ctx: ParseContext,
): ProbePlace {
  const address = kstrtoul(argv[1], 0);
  if (address !== undefined) return { symbol: undefined, offset: 0, address, isReturn, functionEntry: false };
  ctx.index = 1;
  if (argv[1].includes('/') && argv[1].includes(':')) cancel(argv); // a uprobe spec
  let symbol = argv[1];
  const pct = symbol.indexOf('%');
  if (pct >= 0) {
    if (symbol.slice(pct) !== '%return') probeLogErr(ctx, pct, 'BAD_ADDR_SUFFIX');
    symbol = symbol.slice(0, pct);
    isReturn = true;
  }
  const sign = symbol.search(/[+-]/);
  let offset = 0n;
  if (sign >= 0) {
    const off = kstrtol(symbol.slice(sign), 0);
    if (off === undefined || off < 0n || off > UINT_MAX) probeLogErr(ctx, 0, 'BAD_PROBE_ADDR');
    offset = off;
    symbol = symbol.slice(0, sign);
  }
  const entry = resolver.functionEntry(symbol, Number(offset));
  if (entry === 'not-entry' && isReturn) probeLogErr(ctx, 0, 'BAD_RETPROBE');
  if (!symbol.includes(':')) {
    const count = resolver.countSymbols(symbol);
    if (count > 1) probeLogErr(ctx, 0, 'NON_UNIQ_SYMBOL', 'EADDRNOTAVAIL');
    if (count === 0) probeLogErr(ctx, 0, 'BAD_PROBE_ADDR', 'ENOENT');
  }
  return {
    symbol,
    offset: Number(offset),
    address: undefined,
    isReturn,
    functionEntry: entry === 'entry' && !isReturn,
  };
}

/** `$arg...` words checked before any argument is parsed; `$arg*` needs BTF, which this kernel lacks. */
function checkVarArgs(args: readonly string[], ctx: ParseContext): void {
  let argsIdx = -1;
  for (let i = 0; i < args.length; i++) {
    if (!args[i].startsWith('$arg')) continue;
    ctx.index = i + 2;
    if (!isFunctionEntryCtx(ctx) && !ctx.isReturn) probeLogErr(ctx, 0, 'NOFENTRY_ARGS');
    if (isDigit(args[i][4])) continue;
    if (args[i][4] !== '*') probeLogErr(ctx, 0, 'BAD_VAR');
    if (argsIdx >= 0) probeLogErr(ctx, 0, 'DOUBLE_ARGS');
    argsIdx = i;
  }
  if (argsIdx >= 0) probeLogErr(ctx, 0, 'NOSUP_BTFARG', 'EOPNOTSUPP');
}

function parseDefinition(argv: readonly string[], resolver: ProbeResolver): ProbeDefinition {
  const kind0 = argv[0]?.[0];
  if ((kind0 !== 'p' && kind0 !== 'r') || argv.length < 2) cancel(argv);
  const head: ParseContext = { argv, index: 0, offset: 0, isReturn: false, functionEntry: false };
  const colon = argv[0].indexOf(':', 1);
  const maxactive = parseMaxactive(argv, kind0 === 'r', colon, head);
  const place = parsePlace(argv, kind0 === 'r', resolver, head);
  head.index = 0;
  const name = colon >= 0 ? traceprobeParseEventName(argv[0].slice(colon + 1), colon + 1, head) : undefined;
  const kind = place.isReturn ? 'r' : 'p';
  const event = name?.event ?? defaultEventName(kind, place.symbol, place.offset, place.address);

  // TPARG_FL_RETURN is only set for symbol places: an address `r` probe cannot read $retval.
  const ctx: ParseContext = {
    argv,
    index: 0,
    offset: 0,
    isReturn: place.isReturn && place.symbol !== undefined,
    functionEntry: place.functionEntry,
  };
  const words = argv.slice(2);
  checkVarArgs(words, ctx);
  if (words.length > MAX_TRACE_ARGS) {
    ctx.index = 2;
    probeLogErr(ctx, 0, 'TOO_MANY_ARGS', 'E2BIG');
  }
  const args: ProbeArg[] = [];
  let size = 0;
  for (let i = 0; i < words.length; i++) {
    ctx.index = i + 2;
    ctx.offset = 0;
    const arg = traceprobeParseProbeArg(args, i, words[i], size, ctx);
    size += arg.type.size * (arg.count || 1);
    args.push(arg);
  }
  const colonInSymbol = place.symbol?.indexOf(':') ?? -1;
  return Object.freeze({
    kind,
    group: name?.group ?? KPROBE_EVENT_SYSTEM,
    event,
    symbol: place.symbol,
    module: colonInSymbol >= 0 ? place.symbol?.slice(0, colonInSymbol) : undefined,
    offset: place.offset,
    address: place.address,
    maxactive,
    functionEntry: place.functionEntry,
    args: Object.freeze(args),
    size,
    argv: Object.freeze([...argv]),
  });
}

/**
 * Parses a `p`/`r` definition from its argv words, in the kernel's order of checks: type letter,
 * maxactive, probe place (suffix, offset, return-probe entry check, symbol uniqueness), event and group
 * names, `$arg` words, then each argument.
 *
 * @see kernel/trace/trace_kprobe.c __trace_kprobe_create()
 * @example
 * const r = parseProbeCommand(['p:myprobe', 'do_sys_open', 'dfd=%di'], resolver);
 * if (r.ok) r.value.args[0].name; // 'dfd'
 */
export function parseProbeCommand(argv: readonly string[], resolver: ProbeResolver): ProbeParseResult<ProbeDefinition> {
  return catchProbeParseError(() => parseDefinition(argv, resolver));
}
