import { TracerUsageError } from '../plugins/tracer-usage-error.js';
import type { TracerSymbols } from '../view/tracer-symbols.js';

/** How funclatency was called: its unit (`-u`, `-m`), `-F`, and the function pattern. */
export interface FuncLatencyArgs {
  readonly unit: 'nsecs' | 'usecs' | 'msecs';
  /** ns per unit: 1, 1000 or 1000000. */
  readonly factor: number;
  /** `-F`: one histogram per function. */
  readonly perFunction: boolean;
  readonly pattern: string;
}

/** The usage line funclatency's errors end with, its options as bcc's. */
export const FUNCLATENCY_USAGE =
  'usage: funclatency [-u|-m] [-F] PATTERN (e.g. funclatency vfs_read, funclatency -F "vfs_*")';

/**
 * Parses funclatency's arguments as bcc's does for the options int3 has: `-u` microseconds, `-m`
 * milliseconds, `-F` a histogram per function (bundled flags such as `-uF` too), and one pattern with
 * `*` wildcards. Throws a {@link TracerUsageError} ending with {@link FUNCLATENCY_USAGE}.
 *
 * @see bcc tools/funclatency.py (argparse)
 * @example
 * parseFuncLatencyArgs(['-u', 'vfs_*']); // { unit: 'usecs', factor: 1000, perFunction: false, pattern: 'vfs_*' }
 */
export function parseFuncLatencyArgs(args: readonly string[]): FuncLatencyArgs {
  let unit: FuncLatencyArgs['unit'] = 'nsecs';
  let perFunction = false;
  const patterns: string[] = [];
  for (const arg of args) {
    if (arg.length > 1 && arg.startsWith('-')) {
      for (const flag of arg.slice(1)) {
        if (flag === 'u') unit = 'usecs';
        else if (flag === 'm') unit = 'msecs';
        else if (flag === 'F') perFunction = true;
        else throw new TracerUsageError(`unknown option '-${flag}'; ${FUNCLATENCY_USAGE}`);
      }
    } else patterns.push(arg);
  }
  if (patterns.length !== 1) {
    throw new TracerUsageError(`${patterns.length === 0 ? 'no pattern' : 'one pattern only'}; ${FUNCLATENCY_USAGE}`);
  }
  const factor = unit === 'msecs' ? 1_000_000 : unit === 'usecs' ? 1000 : 1;
  return { unit, factor, perFunction, pattern: patterns[0] };
}

/**
 * The kernel functions a pattern names: itself when it has no `*`, else every text symbol it matches
 * (kallsyms order, each name once), as bcc turns `*` into `.*` and matches the traceable functions.
 */
export function matchFunctions(symbols: Pick<TracerSymbols, 'functions'>, pattern: string): string[] {
  return pattern.includes('*') ? symbols.functions(pattern) : [pattern];
}
