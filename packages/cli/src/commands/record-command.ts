import type { LogSink } from '@int3/kernel';
import type { Command } from 'commander';
import { AtomicOutput } from '../runtime/atomic-output.js';
import { environmentOf } from '../runtime/cli-environment.js';
import { addTraceOptions } from '../tracing/add-trace-options.js';
import type { TraceOptions } from '../tracing/trace-plan.js';
import { STDOUT_PATH, stdoutSink } from '../tracing/trace-sink.js';
import { writeOut } from '../write-out.js';
import { GDB_OPTION_HELP, printTrace, traceRun } from './trace-command.js';

const EXAMPLE = `
Example:
  $ int3 record -o run.int3log -e 'p:open do_sys_open' -- cat /etc/motd
  $ int3 replay run.int3log                          # the same lines, byte for byte
  $ int3 replay run.int3log -e 'r:ret do_sys_open $retval'   # probes added after the fact
  $ int3 replay run.int3log --at 12                  # registers, task and code at event 12 (the #BP)

Ctrl-C (SIGINT), SIGTERM or SIGHUP stops the run at the next slice; the log written holds the run up
to there, ends with an end record naming the signal, and replays as such (exit 130, 143 or 129).`;

/**
 * Registers `int3 record -o <log> [trace options]`: runs exactly as `int3 trace` (same output) and
 * writes the run's event log, whose inputs include every tracefs write.
 */
export function registerRecordCommand(program: Command): void {
  const command = program
    .command('record')
    .description('run as int3 trace does, and write the run as a replayable event log')
    .requiredOption(
      '-o, --output <log>',
      "the event log to write (e.g. run.int3log; '-': stdout, the trace then goes to stderr)",
    );
  addTraceOptions(command)
    .option('--gdb <[host:]port>', GDB_OPTION_HELP)
    .addHelpText('after', EXAMPLE)
    .action(
      async (
        workload: string[],
        options: TraceOptions & { output: string; image?: string; gdb?: string },
        cmd: Command,
      ) => {
        const logToStdout = options.output === STDOUT_PATH;
        const sink = logToStdout
          ? () => stdoutSink(environmentOf(cmd).writeErr)
          : () => stdoutSink((s) => writeOut(cmd, s));
        // The log is written as the run goes (never held as one string): to stdout, or to a temporary
        // file beside the target, opened (so checked) before the run and renamed at its end.
        const file = logToStdout ? undefined : AtomicOutput.open(options.output, 'record');
        const log: LogSink = file ?? { write: (s) => writeOut(cmd, s) };
        try {
          const result = await traceRun(
            cmd,
            { ...options, workload, output: undefined },
            'record',
            sink,
            !logToStdout,
            log,
          );
          result.traced.session.end(result.stop ?? 'complete');
          file?.commit();
          printTrace(cmd, result, !logToStdout && result.format === 'text');
          if (result.failure) throw result.failure;
        } finally {
          file?.abort();
        }
      },
    );
}
