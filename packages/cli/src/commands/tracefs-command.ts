import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { TracerHost } from '@int3/tracer-plugins';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { environmentOf } from '../runtime/cli-environment.js';
import { globalOptions } from '../runtime/global-options.js';
import { EXIT_INTERRUPTED, type Interrupt } from '../runtime/interrupt.js';
import { completeShellLine } from '../shell/complete-shell-line.js';
import { TracefsShell } from '../shell/tracefs-shell.js';
import { finishTracers, pluginFailure, startTracers } from '../tracing/plugin-tracers.js';
import { parseCpus } from '../tracing/trace-plan.js';
import { createTracedSession, readKernelImage, type TracedSession } from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';
import { CommonOptions } from './common-options.js';

const EXAMPLE = `
Commands: echo [-n] [TEXT] [> PATH | >> PATH], cat PATH, ls [PATH], run WORKLOAD [ARGS...],
call SYMBOL [ARGS...], sleep N, insmod FILE, rmmod NAME, # comments. Relative paths are under
/sys/kernel/tracing; the kprobes debugfs files are /sys/kernel/debug/kprobes/{list,enabled,blacklist}.
On a terminal the shell is interactive: history (up/down) and Tab completion of commands and paths.
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

/** The interactive prompt. */
const PROMPT = 'tracefs# ';

/** Registers `int3 tracefs [--cpus N] [--script file] [--image <vmlinux>]`: the tracefs line shell. */
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
      const c = createCliContainer(cmd, () => createTracedSession(image, cpus));
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
      if (interactive) await runInteractive(shell, traced, interrupt);
      else await shell.executeScript(script);
      writeOut(cmd, finishTracers(host, tracers));
      const failed = pluginFailure(host, globals.verbose);
      if (failed) throw failed;
      // A script Ctrl-C stopped ends as sh's does: 128 + SIGINT.
      if (!interactive && shell.interrupted) process.exitCode = EXIT_INTERRUPTED;
      else if (shell.failed) process.exitCode = 1;
    });
}

/**
 * The shell on a terminal: node:readline with a prompt, in-memory history and Tab completion; Ctrl-C
 * stops the command running (at its next slice) or drops the line being typed; Ctrl-D (or `exit`)
 * leaves. Lines typed while a command runs wait their turn.
 */
function runInteractive(shell: TracefsShell, traced: TracedSession, interrupt: Interrupt): Promise<void> {
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: PROMPT,
    historySize: 1000,
    completer: (line: string) => completeShellLine(line, traced.fs),
  });
  let busy = false;
  let queue = Promise.resolve();
  return new Promise((resolve) => {
    rl.on('line', (line) => {
      if (line.trim() === 'exit') {
        rl.close();
        return;
      }
      queue = queue.then(async () => {
        busy = true;
        await shell.execute(line);
        busy = false;
        rl.prompt();
      });
    });
    rl.on('SIGINT', () => {
      process.stdout.write('^C\n');
      if (busy) {
        interrupt.request();
        return;
      }
      rl.write(null, { ctrl: true, name: 'u' });
      rl.prompt();
    });
    rl.on('close', () => {
      process.stdout.write('\n');
      void queue.then(resolve);
    });
    rl.prompt();
  });
}

function readScript(path: string | undefined): string {
  try {
    return readFileSync(path ?? 0, 'utf8');
  } catch (error) {
    throw new CliError('usage', `cannot read script '${path ?? 'stdin'}': ${(error as Error).message}`, 'tracefs');
  }
}
