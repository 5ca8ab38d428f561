import type { Command } from 'commander';
import { escapeControls } from '../runtime/escape-controls.js';
import { addInspectOptions, bootTraced, type InspectOptions } from '../tracing/boot-traced.js';
import { writeOut } from '../write-out.js';

/** Registers `int3 dmesg [--run <workload>]… [-e <def>]…`: the kernel log after boot and the runs. */
export function registerDmesgCommand(program: Command): void {
  addInspectOptions(
    program.command('dmesg').description('print the kernel log (printk) after boot and any --run workloads'),
  )
    .addHelpText('after', "\nExample:\n  $ int3 dmesg --run 'fault'\n  [    0.000000] Linux version ...")
    .action(async (options: InspectOptions, cmd: Command) => {
      // printk lines of guest modules: escaped before they reach a terminal.
      writeOut(cmd, escapeControls((await bootTraced(cmd, options, 'dmesg')).session.machine.printk.dmesg()));
    });
}
