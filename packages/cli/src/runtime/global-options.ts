import type { Command } from 'commander';
import { collect } from '../commands/common-options.js';

/** The options every command accepts (declared on the program). */
export interface GlobalOptions {
  /** `--plugin <pkg|path>`, in order. */
  readonly plugins: readonly string[];
  /** `--tracer '<name> [args…]'`, in order, as typed. */
  readonly tracers: readonly string[];
  /** False for `--no-color`. */
  readonly color: boolean;
  readonly quiet: boolean;
  /** `--verbose`: a failing plugin's stack trace too. */
  readonly verbose: boolean;
}

/** Declares `--plugin`, `--tracer`, `--no-color`, `--quiet` and `--verbose` on the program. */
export function addGlobalOptions(program: Command): Command {
  return program
    .option('--plugin <pkg|path>', 'load a tracer plugin and print its report after the trace (repeatable)', collect)
    .option(
      '--tracer <name args>',
      "start a tracer with arguments, e.g. --tracer 'funclatency vfs_read' (repeatable; see int3 tracers)",
      collect,
    )
    .option('--no-color', 'no colours, even on a terminal (NO_COLOR=1 does the same)')
    .option('-q, --quiet', 'no progress line and no notes on stderr')
    .option('--verbose', "with a failing plugin, print its exception's stack too");
}

/** The global options as seen from any command. */
export function globalOptions(command: Command): GlobalOptions {
  const o = command.optsWithGlobals() as {
    plugin?: string[];
    tracer?: string[];
    color?: boolean;
    quiet?: boolean;
    verbose?: boolean;
  };
  return {
    plugins: o.plugin ?? [],
    tracers: o.tracer ?? [],
    color: o.color !== false,
    quiet: o.quiet === true,
    verbose: o.verbose === true,
  };
}
