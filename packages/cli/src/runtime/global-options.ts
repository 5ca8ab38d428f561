import { type Command, Option } from 'commander';
import { CliError } from '../cli-error.js';
import { collect } from '../commands/common-options.js';
import { COLOR_WHEN, type ColorWhen } from './color-when.js';

/** The options every command accepts (declared on the program). */
export interface GlobalOptions {
  /** `--plugin <pkg|path>`, in order. */
  readonly plugins: readonly string[];
  /** `--tracer '<name> [args…]'`, in order, as typed. */
  readonly tracers: readonly string[];
  /** `--color=WHEN` (`never` for `--no-color`, `auto` when neither is given). */
  readonly color: ColorWhen;
  readonly quiet: boolean;
  /** `--verbose`: a failing plugin's stack trace too. */
  readonly verbose: boolean;
  /** `--plugin-timeout`: ms a call into plugin code may run without returning (0: no limit). */
  readonly pluginTimeoutMs: number;
}

/** The default `--plugin-timeout`, in seconds. */
export const DEFAULT_PLUGIN_TIMEOUT_S = 10;

/**
 * Declares `--plugin`, `--tracer`, `--color`, `--no-color`, `--quiet`, `--verbose` and `--plugin-timeout`
 * on the program.
 */
export function addGlobalOptions(program: Command): Command {
  return program
    .option('--plugin <pkg|path>', 'load a tracer plugin and print its report after the trace (repeatable)', collect)
    .option(
      '--tracer <name args>',
      "start a tracer with arguments, e.g. --tracer 'funclatency vfs_read' (repeatable; see int3 tracers)",
      collect,
    )
    .addOption(
      new Option(
        '--color <when>',
        'colours: auto (on a terminal, unless NO_COLOR or TERM=dumb; FORCE_COLOR=1 forces), always or never',
      ).choices(COLOR_WHEN),
    )
    .option('--no-color', 'no colours, even on a terminal (as --color=never)')
    .option('-q, --quiet', 'no progress line and no notes on stderr')
    .option('--verbose', "with a failing plugin, print its exception's stack too")
    .option(
      '--plugin-timeout <seconds>',
      `stop the run when a plugin's handler runs this long without returning (0: never; default ${DEFAULT_PLUGIN_TIMEOUT_S})`,
    );
}

/** The global options as seen from any command. */
export function globalOptions(command: Command): GlobalOptions {
  const o = command.optsWithGlobals() as {
    plugin?: string[];
    tracer?: string[];
    color?: ColorWhen | boolean;
    quiet?: boolean;
    verbose?: boolean;
    pluginTimeout?: string;
  };
  return {
    plugins: o.plugin ?? [],
    tracers: o.tracer ?? [],
    color: o.color === false ? 'never' : o.color === undefined || o.color === true ? 'auto' : o.color,
    quiet: o.quiet === true,
    verbose: o.verbose === true,
    pluginTimeoutMs: parsePluginTimeout(o.pluginTimeout),
  };
}

/** Reads `--plugin-timeout`: seconds from 0 to 3600; a bad value is a usage error. */
function parsePluginTimeout(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PLUGIN_TIMEOUT_S * 1000;
  const s = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || s > 3600) {
    throw new CliError('usage', `bad --plugin-timeout '${text}': expected seconds from 0 to 3600, e.g. 10 or 0.5`);
  }
  return Math.round(s * 1000);
}
