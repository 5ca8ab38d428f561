import type { Command } from 'commander';
import { buildModule } from '../module/build-module.js';
import { environmentOf } from '../runtime/cli-environment.js';
import { writeOut } from '../write-out.js';

const EXAMPLE = `
The headers are Linux's module API (<linux/module.h>, <linux/kernel.h>, <linux/kprobes.h>,
<linux/ktime.h>, <linux/sched.h>, <linux/slab.h>, <linux/kallsyms.h>, <linux/jiffies.h>,
<linux/uaccess.h>), shipped with int3: a module written as the Linux samples/kprobes examples
are compiles unchanged.

Example:
  $ int3 module build kprobe_example.c
  kprobe_example.ko
  $ int3 dmesg --insmod 'kprobe_example.ko symbol=do_sys_open' --run 'cat /etc/motd'

Exit status: 0 built, 1 gcc missing or the compile failed (gcc's messages on stderr), 2 bad usage.`;

/** Registers `int3 module build <file.c>… [-o <file.ko>]`. */
export function registerModuleCommand(program: Command): void {
  const module = program.command('module').description('build kernel modules for insmod/--insmod');
  module
    .command('build')
    .description('compile C files into a module with gcc, the kernel flags and the Linux headers int3 ships')
    .argument('<file.c...>', 'the module sources')
    .option('-o, --output <file.ko>', 'the module to write (default: the first source with .ko)')
    .option('-g, --debug-info', "with DWARF debug information, for gdb's source-level debugging (replay --gdb)")
    .addHelpText('after', EXAMPLE)
    .action((sources: string[], options: { output?: string; debugInfo?: boolean }, cmd: Command) => {
      const { output, diagnostics } = buildModule(sources, options.output, { debugInfo: options.debugInfo === true });
      if (diagnostics !== '') environmentOf(cmd).writeErr(diagnostics);
      writeOut(cmd, `${output}\n`);
    });
}
