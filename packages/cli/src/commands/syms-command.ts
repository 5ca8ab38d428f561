import { globMatch } from '@int3/tracer-plugins';
import type { Command } from 'commander';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { createTracedSession, readKernelImage, type TracedSession } from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';

/**
 * Registers `int3 syms [glob] [--json]`: the kernel's text symbols, one per line, like
 * `available_filter_functions` (module symbols carry ` [module]`), or a JSON array. The glob is the
 * kernel's `glob_match` (`*`, `?`, `[a-z]`, `[!…]`, `\` escapes; a malformed `[` is a literal), the
 * tracer's own port: no regular expression, so no pattern can make it backtrack for ever.
 *
 * @see kernel/trace/ftrace.c (available_filter_functions), lib/glob.c glob_match()
 */
export function registerSymsCommand(program: Command): void {
  program
    .command('syms')
    .description('list the kernel functions one can probe (like available_filter_functions)')
    .argument('[glob]', "a shell pattern, e.g. 'sys_*'", '*')
    .option('--json', 'one JSON array of {name, address, size, module?}')
    .addHelpText(
      'after',
      "\nExamples:\n  $ int3 syms 'sys_mk*'\n  sys_mkdir\n  sys_mkdirat\n  $ int3 syms | wc -l\n  $ int3 syms --json 'sys_*' | jq '.[0]'",
    )
    .action((glob: string, options: { json?: boolean }, cmd: Command) => {
      const image = readKernelImage(undefined, 'syms');
      const c = createCliContainer(cmd, () => createTracedSession(image, 1));
      const { session } = c.get<TracedSession>(CliTokens.TracedSession);
      const encoder = new TextEncoder();
      const pattern = encoder.encode(glob);
      const matches = (name: string) => {
        const bytes = encoder.encode(name);
        return globMatch(pattern, bytes, 0, bytes.length);
      };
      const syms = session.machine.kallsyms.all().filter((s) => (s.type === 'T' || s.type === 't') && matches(s.name));
      if (options.json) {
        const rows = syms.map((s) => ({
          name: s.name,
          address: `0x${s.address.toString(16)}`,
          size: s.size,
          ...(s.module === undefined ? {} : { module: s.module }),
        }));
        writeOut(cmd, `${JSON.stringify(rows)}\n`);
        return;
      }
      writeOut(cmd, syms.map((s) => `${s.name}${s.module === undefined ? '' : ` [${s.module}]`}\n`).join(''));
    });
}
