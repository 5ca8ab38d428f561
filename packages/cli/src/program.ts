import { compilerFromEnvironment } from '@int3/cpu';
import { Command } from 'commander';
import { CliError } from './cli-error.js';
import { registerBpftraceCommand } from './commands/bpftrace-command.js';
import { registerCallCommand } from './commands/call-command.js';
import { registerCompletionCommand } from './commands/completion-command.js';
import { registerDemoCommand } from './commands/demo-command.js';
import { registerDisasmCommand } from './commands/disasm-command.js';
import { registerDmesgCommand } from './commands/dmesg-command.js';
import { registerModuleCommand } from './commands/module-command.js';
import { registerProbesCommand } from './commands/probes-command.js';
import { registerRecordCommand } from './commands/record-command.js';
import { registerReplayCommand } from './commands/replay-command.js';
import { registerSymsCommand } from './commands/syms-command.js';
import { registerTraceCommand } from './commands/trace-command.js';
import { registerTracefsCommand } from './commands/tracefs-command.js';
import { registerTracersCommand } from './commands/tracers-command.js';
import { describeProgram } from './describe-program.js';
import { attachEnvironment, type CliEnvironment, processEnvironment } from './runtime/cli-environment.js';
import { INTERRUPTIBLE_COMMANDS, interruptedBy } from './runtime/interrupt.js';

export { VERSION } from './version.js';

/**
 * Builds the `int3` command line. Commands register themselves here; `bin.ts` only parses argv.
 * Parse errors throw (exitOverride) so `bin.ts` decides the exit code; subcommands inherit that. The
 * environment (terminals, Ctrl-C, directory) is the process's unless a test passes its own.
 *
 * @example
 * await createProgram().parseAsync(['node', 'int3', '--version']);
 */
export function createProgram(environment: CliEnvironment = processEnvironment()): Command {
  const program = describeProgram(new Command('int3'));
  attachEnvironment(program, environment);
  // Each command says, before it runs, whether Ctrl-C stops its runs or the process at once.
  program.hook('preAction', (_program, action) => {
    environment.interrupt.declare(INTERRUPTIBLE_COMMANDS.has(action.name()));
    // A CPU reads the compiler's settings from the environment when it is made; a bad one is the
    // user's mistake, said before the command starts rather than as an internal error in its middle.
    try {
      compilerFromEnvironment(environment.env);
    } catch (error) {
      throw new CliError('usage', (error as Error).message);
    }
  });
  // A signal a command did not stop at (it came during short work, which finished): its output is
  // all there, and the exit status says the signal came.
  program.hook('postAction', (_program, action) => {
    const signal = environment.interrupt.signal;
    if (signal !== undefined && INTERRUPTIBLE_COMMANDS.has(action.name()) && action.name() !== 'tracefs') {
      throw interruptedBy(signal, 'after the command had done its work; printed all of it');
    }
  });
  registerTraceCommand(program);
  registerRecordCommand(program);
  registerReplayCommand(program);
  registerTracefsCommand(program);
  registerTracersCommand(program);
  registerBpftraceCommand(program);
  registerProbesCommand(program);
  registerSymsCommand(program);
  registerDisasmCommand(program);
  registerDmesgCommand(program);
  registerCallCommand(program);
  registerModuleCommand(program);
  registerDemoCommand(program);
  registerCompletionCommand(program);
  return program;
}
