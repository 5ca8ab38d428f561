import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { addInspectOptions, bootTraced, type InspectOptions } from '../tracing/boot-traced.js';
import { writeOut } from '../write-out.js';

const EXAMPLE = `
Example:
  $ int3 probes list -e 'p:open do_sys_open' -e 'r:mk sys_mkdir'
  ffffffffa0001000  k  kretprobe_trampoline+0x0
  ffffffff81001c80  k  do_sys_open+0x0
  ffffffff81001830  r  sys_mkdir+0x0
  $ int3 probes blacklist | head -3`;

/** Registers `int3 probes list|blacklist`: `/sys/kernel/debug/kprobes/list` or `blacklist`. */
export function registerProbesCommand(program: Command): void {
  const command = program
    .command('probes')
    .description('print the kprobes debugfs list (registered probes) or blacklist')
    .argument('<what>', 'list or blacklist');
  addInspectOptions(command)
    .addHelpText('after', EXAMPLE)
    .action(async (what: string, options: InspectOptions, cmd: Command) => {
      if (what !== 'list' && what !== 'blacklist') {
        throw new CliError('usage', `unknown 'probes ${what}': expected list or blacklist`, 'probes');
      }
      writeOut(cmd, (await bootTraced(cmd, options, 'probes')).fs.read(`/sys/kernel/debug/kprobes/${what}`));
    });
}
