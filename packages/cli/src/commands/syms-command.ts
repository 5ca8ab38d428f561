import { readSampleImage, SAMPLE_IMAGE_PATH, Session, sampleProgram } from '@int3/kernel';
import type { Command } from 'commander';
import { globToRegExp } from '../shell/glob-to-regexp.js';
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
    .addHelpText('after', "\nExample:\n  $ int3 syms 'sys_mk*'\n  sys_mkdir")
    .action((glob: string, _options: unknown, cmd: Command) => {
      const session = Session.create({
        image: readSampleImage(),
        imageName: SAMPLE_IMAGE_PATH,
        programs: sampleProgram,
      });
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
