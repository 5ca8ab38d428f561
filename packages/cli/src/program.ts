import { Command } from 'commander';
import { registerCallCommand } from './commands/call-command.js';
import { registerDemoCommand } from './commands/demo-command.js';

/** The version printed by `int3 --version`. */
export const VERSION = '0.1.0';

/**
 * Builds the `int3` command line. Commands register themselves here; `bin.ts` only parses argv.
 * Parse errors throw (exitOverride) so `bin.ts` decides the exit code; subcommands inherit that.
 *
 * @example
 * await createProgram().parseAsync(['node', 'int3', '--version']);
 */
export function createProgram(): Command {
  const program = new Command('int3')
    .description('Linux kprobes on an emulated x86-64 kernel: trace, record, replay')
    .version(VERSION, '--version', 'print the version')
    .exitOverride()
    .showHelpAfterError('(add --help for usage and an example)');
  registerCallCommand(program);
  registerDemoCommand(program);
  return program;
}
