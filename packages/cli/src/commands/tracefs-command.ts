import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { TracefsShell } from '../shell/tracefs-shell.js';
import { parseCpus } from '../tracing/trace-plan.js';
import { createTracedSession, readKernelImage } from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';

const EXAMPLE = `
Commands: echo [-n] [TEXT] [> PATH | >> PATH], cat PATH, ls [PATH], run WORKLOAD [ARGS...], sleep N,
insmod FILE, rmmod NAME, # comments. Relative paths are under /sys/kernel/tracing; the kprobes
debugfs files are /sys/kernel/debug/kprobes/{list,enabled,blacklist}.

Example:
  $ int3 tracefs <<'EOF'
  echo 'p:myprobe do_sys_open dfd=%di filename=+0(%si):string' > kprobe_events
  echo 1 > events/kprobes/myprobe/enable
  run cat /etc/motd
  cat trace_pipe
  EOF

Exit status: 0 if every command succeeded, 1 if any failed (a failed write prints
"echo: write error: <strerror>"), 2 bad option or script file.`;

/** Registers `int3 tracefs [--cpus N] [--script file] [--image <vmlinux>]`: the tracefs line shell. */
export function registerTracefsCommand(program: Command): void {
  program
    .command('tracefs')
    .description('a line shell over the virtual tracefs: echo > kprobe_events, cat trace, as in the kernel docs')
    .option('--script <file>', 'read commands from a file instead of stdin')
    .option('--cpus <n>', 'CPUs to boot', '2')
    .option('--image <vmlinux>', 'kernel image (default: the sample kernel)')
    .addHelpText('after', EXAMPLE)
    .action((options: { script?: string; cpus: string; image?: string }, cmd: Command) => {
      const cpus = parseCpus(options.cpus, (m) => new CliError('usage', m, 'tracefs'));
      const script = readScript(options.script);
      const traced = createTracedSession(readKernelImage(options.image, 'tracefs'), cpus);
      const shell = new TracefsShell(traced, {
        out: (s) => writeOut(cmd, s),
        err: (s) => process.stderr.write(s),
      });
      shell.executeScript(script);
      if (shell.failed) process.exitCode = 1;
    });
}

function readScript(path: string | undefined): string {
  try {
    return readFileSync(path ?? 0, 'utf8');
  } catch (error) {
    throw new CliError('usage', `cannot read script '${path ?? 'stdin'}': ${(error as Error).message}`, 'tracefs');
  }
}
