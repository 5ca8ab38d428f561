import type { Command } from 'commander';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { globToRegExp } from '../shell/glob-to-regexp.js';
import { createTracedSession, readKernelImage, type TracedSession } from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';

/**
 * Registers `int3 syms [glob]`: the kernel's text symbols, one per line, like
 * `available_filter_functions` (module symbols carry ` [module]`).
 *
 * @see kernel/trace/ftrace.c (available_filter_functions)
 */
export function registerSymsCommand(program: Command): void {
  program
    .command('syms')
    .description('list the kernel functions one can probe (like available_filter_functions)')
    .argument('[glob]', "a shell pattern, e.g. 'sys_*'", '*')
    .addHelpText('after', "\nExamples:\n  $ int3 syms 'sys_mk*'\n  sys_mkdir\n  sys_mkdirat\n  $ int3 syms | wc -l")
    .action((glob: string, _options: unknown, cmd: Command) => {
      const image = readKernelImage(undefined, 'syms');
      const c = createCliContainer(cmd, () => createTracedSession(image, 1));
      const { session } = c.get<TracedSession>(CliTokens.TracedSession);
      const match = globToRegExp(glob);
      let out = '';
      for (const s of session.machine.kallsyms.all()) {
        if ((s.type === 'T' || s.type === 't') && match.test(s.name)) {
          out += `${s.name}${s.module === undefined ? '' : ` [${s.module}]`}\n`;
        }
      }
      writeOut(cmd, out);
    });
}
