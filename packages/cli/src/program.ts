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
import { registerTracersCommand } from './commands/tracers-command.js';
import { attachEnvironment, type CliEnvironment, processEnvironment } from './runtime/cli-environment.js';
import { addGlobalOptions } from './runtime/global-options.js';
import { INTERRUPTIBLE_COMMANDS } from './runtime/interrupt.js';

/** The version printed by `int3 --version`. */
export const VERSION = '0.1.0';

const EXAMPLES = `
Examples:
  $ int3 demo                                        # kprobes in one screen
  $ int3 trace -e 'p:open do_sys_open filename=+0(%si):string' --run 'cat /etc/motd'
  $ int3 tracefs                                     # echo > kprobe_events, cat trace, as in the docs
  $ int3 record -o run.int3log --run dd && int3 replay run.int3log -e 'p:bio submit_bio'

Global options go before or after the command. Colours only on a terminal (NO_COLOR, --no-color).
Exit status: 0 ok, 1 the run failed, 2 usage error, 130 interrupted (Ctrl-C).`;

/**
 * Builds the `int3` command line. Commands register themselves here; `bin.ts` only parses argv.
 * Parse errors throw (exitOverride) so `bin.ts` decides the exit code; subcommands inherit that. The
 * environment (terminals, Ctrl-C, directory) is the process's unless a test passes its own.
 *
 * @example
 * await createProgram().parseAsync(['node', 'int3', '--version']);
 */
export function createProgram(environment: CliEnvironment = processEnvironment()): Command {
  const program = new Command('int3')
    .description('Linux kprobes on an emulated x86-64 kernel: trace, record, replay')
    .version(VERSION, '--version', 'print the version')
    .exitOverride()
    .showHelpAfterError('(add --help for usage and an example)')
    .addHelpText('after', EXAMPLES);
  attachEnvironment(program, environment);
  // Each command says, before it runs, whether Ctrl-C stops its runs or the process at once.
  program.hook('preAction', (_program, action) =>
    environment.interrupt.declare(INTERRUPTIBLE_COMMANDS.has(action.name())),
  );
  addGlobalOptions(program);
  registerTraceCommand(program);
  registerRecordCommand(program);
  registerReplayCommand(program);
  registerTracefsCommand(program);
  registerTracersCommand(program);
  registerProbesCommand(program);
  registerSymsCommand(program);
  registerDisasmCommand(program);
  registerDmesgCommand(program);
  registerCallCommand(program);
  registerDemoCommand(program);
  return program;
}
