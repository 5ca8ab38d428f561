import { Command } from 'commander';
import { registerCallCommand } from './commands/call-command.js';
import { registerDemoCommand } from './commands/demo-command.js';
import { registerDisasmCommand } from './commands/disasm-command.js';
import { registerDmesgCommand } from './commands/dmesg-command.js';
import { registerProbesCommand } from './commands/probes-command.js';
import { registerRecordCommand } from './commands/record-command.js';
import { registerReplayCommand } from './commands/replay-command.js';
import { registerSymsCommand } from './commands/syms-command.js';
import { registerTraceCommand } from './commands/trace-command.js';
import { registerTracefsCommand } from './commands/tracefs-command.js';

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
  registerTraceCommand(program);
  registerRecordCommand(program);
  registerReplayCommand(program);
  registerTracefsCommand(program);
  registerProbesCommand(program);
  registerSymsCommand(program);
  registerDisasmCommand(program);
  registerDmesgCommand(program);
  registerCallCommand(program);
  registerDemoCommand(program);
  return program;
}
