import type { AttachPoint, ProbeProvider } from './ast.js';
import { BpftraceError } from './bpftrace-error.js';
import type { SourceLocation } from './source-location.js';

/** Provider names and their aliases, as bpftrace accepts them. */
const PROVIDERS: Readonly<Record<string, ProbeProvider>> = {
  kprobe: 'kprobe',
  k: 'kprobe',
  kretprobe: 'kretprobe',
  kr: 'kretprobe',
  begin: 'begin',
  BEGIN: 'begin',
  end: 'end',
  END: 'end',
  interval: 'interval',
  i: 'interval',
  profile: 'profile',
  p: 'profile',
};

/** Nanoseconds per unit of `interval:UNIT:N`; `hz` is a frequency. */
const UNIT_NS: Readonly<Record<string, number>> = { s: 1e9, ms: 1e6, us: 1e3, ns: 1 };

/**
 * Splits one attach point's text (`kprobe:vfs_read+0x10`, `kr:mod:func`, `interval:ms:100`,
 * `profile:hz:99`, `begin`) into its parts, with bpftrace's messages for a malformed one.
 *
 * @see bpftrace src/ast/attachpoint_parser.cpp, src/ast/passes/attachpoint_passes.cpp
 */
export function parseAttachPoint(text: string, loc: SourceLocation): AttachPoint {
  const parts = text.split(':');
  const provider = PROVIDERS[parts[0]];
  if (provider === undefined) throw new BpftraceError(`Invalid probe type: ${parts[0]}`, loc);
  const args = parts.slice(1);
  switch (provider) {
    case 'begin':
    case 'end':
      if (args.length > 0) throw new BpftraceError('begin/end probes should not have a target', loc);
      return { provider, text, canonical: provider, loc };
    case 'kprobe':
    case 'kretprobe':
      return kprobePoint(provider, text, args, loc);
    default:
      return periodicPoint(provider, text, args, loc);
  }
}

function kprobePoint(provider: 'kprobe' | 'kretprobe', text: string, args: string[], loc: SourceLocation): AttachPoint {
  if (args.length === 0 || args.length > 2 || args[args.length - 1] === '') {
    throw new BpftraceError('kprobes should be attached to a function or an address', loc);
  }
  const module = args.length === 2 ? args[0] : undefined;
  let func = args[args.length - 1];
  let offset: number | undefined;
  const plus = func.indexOf('+');
  if (plus >= 0) {
    const off = func.slice(plus + 1);
    if (provider === 'kretprobe') throw new BpftraceError('kretprobes can not be attached to a function offset', loc);
    if (!/^(0[xX][0-9a-fA-F]+|[0-9]+)$/.test(off)) {
      throw new BpftraceError(`Invalid function/address argument: invalid trailing bytes: ${off}`, loc);
    }
    offset = Number(off);
    func = func.slice(0, plus);
  }
  if (!/^[A-Za-z0-9_.*?[\]]+$/.test(func)) throw new BpftraceError(`Invalid function name: ${func}`, loc);
  const canonical = `${provider}:${module === undefined ? '' : `${module}:`}${func}${offset ? `+${offset}` : ''}`;
  return { provider, text, canonical, module, func, offset, loc };
}

function periodicPoint(
  provider: 'interval' | 'profile',
  text: string,
  args: string[],
  loc: SourceLocation,
): AttachPoint {
  if (args.length < 2 || args[0] === '') throw new BpftraceError(`${provider} probe must have unit of time`, loc);
  const [unit, count] = args;
  if (unit !== 'hz' && UNIT_NS[unit] === undefined) {
    throw new BpftraceError(`${unit} is not an accepted unit of time`, loc);
  }
  if (!/^[0-9]+$/.test(count)) throw new BpftraceError(`${provider} probe must have an integer frequency`, loc);
  const n = Number(count);
  if (n <= 0) throw new BpftraceError(`${provider} frequency should be a positive integer`, loc);
  const periodNs = unit === 'hz' ? Math.round(1e9 / n) : n * UNIT_NS[unit];
  if (periodNs < 1000) {
    throw new BpftraceError(
      `Invalid rate of ${provider} probe. Minimum is 1000 or 1us. Found: ${periodNs} nanoseconds`,
      loc,
    );
  }
  return { provider, text, canonical: `${provider}:${unit}:${count}`, periodNs, loc };
}
