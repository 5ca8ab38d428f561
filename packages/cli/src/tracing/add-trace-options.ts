import type { Command } from 'commander';
import { CommonOptions, collect } from '../commands/common-options.js';

/**
 * Adds the options `trace`, `record` and `replay` share: `-e` definitions, `--filter`, `--trigger`, `--format`, and
 * unless `replay` (which replays the recorded writes), `--run`, `--cpus`, `--image`, `--buffer-size`,
 * `--no-optimize` and the `[workload...]` argument (`-- cat /etc/motd`: one more workload, as
 * `perf record -- cmd`), which the action receives first.
 */
export function addTraceOptions(command: Command, forReplay = false): Command {
  command
    .addOption(CommonOptions.event())
    .option('--filter <event=expr>', "an event filter, e.g. open='dfd == 3' (repeatable)", collect)
    .option(
      '--trigger <event=command>',
      "an event trigger, e.g. open='hist:keys=common_pid.execname' or read=stacktrace (repeatable); hist tables print after the trace",
      collect,
    )
    .option(
      '--format <format>',
      'text (ftrace lines, as trace_pipe), json (typed JSON Lines, schema v2) or chrome (Chrome Trace Event JSON)',
      'text',
    );
  if (!forReplay) {
    command
      .argument('[workload...]', 'after --: one workload and its arguments, as one --run (as perf record -- cmd)')
      .addOption(CommonOptions.run("a workload and its arguments, e.g. 'cat /etc/motd' (repeatable; default hello)"))
      .addOption(CommonOptions.insmod())
      .addOption(CommonOptions.cpus())
      .addOption(CommonOptions.image())
      .option(
        '--buffer-size <KiB>',
        'ring buffer size per CPU, as buffer_size_kb (default 1408); records that do not fit are lost, and said so',
      )
      .option(
        '--no-optimize',
        'echo 0 > /proc/sys/debug/kprobes-optimization first: no jump optimization, every hit traps',
      );
  }
  return command;
}
