import { WORKLOADS } from '@int3/kernel';
import { Argument, type Command } from 'commander';
import { bashCompletion } from '../completion/bash-completion.js';
import { type CommandNode, commandTree } from '../completion/command-tree.js';
import { fishCompletion } from '../completion/fish-completion.js';
import { zshCompletion } from '../completion/zsh-completion.js';
import { TRACE_FORMATS } from '../tracing/trace-plan.js';
import { writeOut } from '../write-out.js';

/** The shells `int3 completion` writes a script for, and its generator for each. */
const GENERATORS: Readonly<Record<string, (root: CommandNode) => string>> = {
  bash: bashCompletion,
  zsh: zshCompletion,
  fish: fishCompletion,
};

const EXAMPLE = `
Examples:
  $ source <(int3 completion bash)                 # this shell; or save it in ~/.local/share/bash-completion/completions/int3
  $ int3 completion zsh > "\${fpath[1]}/_int3"       # zsh: a directory of $fpath
  $ int3 completion fish > ~/.config/fish/completions/int3.fish
The script is generated from int3's own command and option definitions: commands, options, the
values of --color, --format and --run, and files where a file is expected.`;

/**
 * Registers `int3 completion bash|zsh|fish`: prints a completion script generated from the program's
 * commander definitions (so it lists exactly the commands and options `--help` does).
 *
 * @see bash(1) "Programmable Completion", zshcompsys(1), fish's complete builtin
 */
export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(Object.keys(GENERATORS)))
    .addHelpText('after', EXAMPLE)
    .action((shell: string, _options: unknown, cmd: Command) => {
      const root = commandTree(program, { '--run': WORKLOADS, '--format': TRACE_FORMATS });
      writeOut(cmd, GENERATORS[shell](root));
    });
}
