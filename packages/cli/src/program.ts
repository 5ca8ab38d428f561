import { Command } from 'commander';

/** The version printed by `int3 --version`. */
export const VERSION = '0.1.0';

/**
 * Builds the `int3` command line. Commands register themselves here; `bin.ts` only parses argv.
 *
 * @example
 * await createProgram().parseAsync(['node', 'int3', '--version']);
 */
export function createProgram(): Command {
  const program = new Command('int3')
    .description('Linux kprobes on an emulated x86-64 kernel: trace, record, replay')
    .version(VERSION, '--version', 'print the version');
  return program;
}
