import type { Command } from 'commander';
import { collect } from '../commands/common-options.js';

/** The options every command accepts (declared on the program). */
export interface GlobalOptions {
  /** `--plugin <pkg|path>`, in order. */
  readonly plugins: readonly string[];
  /** False for `--no-color`. */
  readonly color: boolean;
  readonly quiet: boolean;
}

/** Declares `--plugin`, `--no-color` and `--quiet` on the program. */
export function addGlobalOptions(program: Command): Command {
  return program
    .option('--plugin <pkg|path>', 'load a tracer plugin and print its report after the trace (repeatable)', collect)
    .option('--no-color', 'no colours, even on a terminal (NO_COLOR=1 does the same)')
    .option('-q, --quiet', 'no progress line and no notes on stderr');
}

/** The global options as seen from any command. */
export function globalOptions(command: Command): GlobalOptions {
  const o = command.optsWithGlobals() as { plugin?: string[]; color?: boolean; quiet?: boolean };
  return { plugins: o.plugin ?? [], color: o.color !== false, quiet: o.quiet === true };
}
