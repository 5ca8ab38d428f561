import type { Command } from 'commander';

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/**
 * Adds the options `trace`, `record` and `replay` share: `-e` definitions, `--filter`, `--format`, and
 * unless `replay`, `--run`, `--cpus` and `--image`.
 */
export function addTraceOptions(command: Command, forReplay = false): Command {
  command
    .option('-e, --event <definition>', 'a kprobe_events line, e.g. "p:open do_sys_open dfd=%di" (repeatable)', collect)
    .option('--filter <event=expr>', "an event filter, e.g. open='dfd == 3' (repeatable)", collect)
    .option('--format <format>', 'text (ftrace lines, as trace_pipe) or json (one object per record)', 'text');
  if (!forReplay) {
    command
      .option(
        '--run <workload>',
        "a workload and its arguments, e.g. 'cat /etc/motd' (repeatable; default hello)",
        collect,
      )
      .option('--cpus <n>', 'CPUs to boot', '2')
      .option('--image <vmlinux>', 'kernel image (default: the sample kernel)');
  }
  return command;
}
