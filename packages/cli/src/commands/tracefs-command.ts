import type { TracerHost } from '@int3/tracer-plugins';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { environmentOf } from '../runtime/cli-environment.js';
import { globalOptions } from '../runtime/global-options.js';
import { exitStatusOf, type Interrupt } from '../runtime/interrupt.js';
import { readBoundedFile } from '../runtime/read-bounded-file.js';
import { runInteractiveShell } from '../shell/run-interactive-shell.js';
import { historyPath, ShellHistory } from '../shell/shell-history.js';
import { TracefsShell } from '../shell/tracefs-shell.js';
import { finishTracers, pluginFailure, settlePlugins, startTracers } from '../tracing/plugin-tracers.js';
import { parseCpus } from '../tracing/trace-plan.js';
import { createTracedSession, readKernelImage, type TracedSession } from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';
import { CommonOptions } from './common-options.js';

const EXAMPLE = `
Commands: echo [-n] [TEXT] [> PATH | >> PATH], cat PATH, ls [PATH], run WORKLOAD [ARGS...],
call SYMBOL [ARGS...], sleep N, insmod FILE [name=value...], rmmod NAME, dmesg, help, # comments.
Relative paths are under /sys/kernel/tracing; the kprobes debugfs files are
/sys/kernel/debug/kprobes/{list,enabled,blacklist}.
On a terminal the shell is interactive: Tab completion of commands and paths, and history (up/down)
kept across sessions in $XDG_STATE_HOME/int3/tracefs_history (~/.local/state/…; 1000 lines).
The --plugin tracers run from the first command to the last; their reports are printed at the end.

Example:
  $ int3 tracefs <<'EOF'
  echo 'p:myprobe do_sys_open dfd=%di filename=+0(%si):string' > kprobe_events
  echo 1 > events/kprobes/myprobe/enable
  run cat /etc/motd
  cat trace_pipe
  call strlen str:hello
  EOF

Exit status: 0 if every command succeeded, 1 if any failed (a failed write prints
"echo: write error: <strerror>"), 2 bad option or script file, 130 when Ctrl-C stopped a
script's run (interactively, Ctrl-C stops the run and the shell goes on).`;

/** Registers `int3 tracefs [--cpus N] [--script file] [--image <elf>]`: the tracefs line shell. */
export function registerTracefsCommand(program: Command): void {
  program
    .command('tracefs')
    .description('a line shell over the virtual tracefs: echo > kprobe_events, cat trace, as in the kernel docs')
    .option('--script <file>', 'read commands from a file instead of stdin')
    .addOption(CommonOptions.cpus())
    .addOption(CommonOptions.image())
    .addHelpText('after', EXAMPLE)
    .action(async (options: { script?: string; cpus: string; image?: string }, cmd: Command) => {
      const cpus = parseCpus(options.cpus, (m) => new CliError('usage', m, 'tracefs'));
      const interactive = options.script === undefined && environmentOf(cmd).stdinIsTty;
      const script = interactive ? '' : readScript(options.script);
      const image = readKernelImage(options.image, 'tracefs');
      const c = createCliContainer(cmd, () => createTracedSession(image, cpus, { command: 'tracefs' }));
      const traced = c.get<TracedSession>(CliTokens.TracedSession);
      const interrupt = c.get<Interrupt>(CliTokens.Interrupt);
      const shell = new TracefsShell(
        traced,
        { out: (s) => writeOut(cmd, s), err: environmentOf(cmd).writeErr },
        interrupt,
      );
      const host = await c.getAsync<TracerHost>(CliTokens.TracerHost);
      const globals = globalOptions(cmd);
      const tracers = startTracers(host, globals.tracers, 'tracefs');
      if (interactive) {
        const path = historyPath(environmentOf(cmd).env);
        const history = path === undefined ? undefined : new ShellHistory(path);
        await runInteractiveShell({
          shell,
          fs: traced.fs,
          interrupt,
          input: process.stdin,
          output: process.stdout,
          history,
        });
      } else await shell.executeScript(script);
      await settlePlugins(host);
      writeOut(cmd, finishTracers(host, tracers));
      const failed = pluginFailure(host, globals.verbose);
      if (failed) throw failed;
      // A script Ctrl-C stopped ends as sh's does: 128 + SIGINT.
      if (!interactive && shell.interrupted) process.exitCode = exitStatusOf(shell.stopSignal ?? 'SIGINT');
      else if (shell.failed) process.exitCode = 1;
    });
}

/** The largest `--script` (or standard input script) the shell reads. */
export const MAX_SCRIPT_BYTES = 16 * 1024 * 1024;

function readScript(path: string | undefined): string {
  const bytes = readBoundedFile(
    path ?? 0,
    MAX_SCRIPT_BYTES,
    (why) => new CliError('usage', `cannot read script '${path ?? 'stdin'}': ${why}`, 'tracefs'),
  );
  return Buffer.from(bytes).toString('utf8');
}
