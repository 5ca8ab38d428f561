import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { addTraceOptions } from '../tracing/add-trace-options.js';
import { checkOutcome, defineEvents, renderTrace } from '../tracing/run-trace.js';
import { parseTracePlan, type TraceOptions } from '../tracing/trace-plan.js';
import { readKernelImage, replayTracedSession } from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';

const EXAMPLE = `
Without -e, the state hash of every checkpoint is verified and the trace printed is byte for byte the
one the recorded run printed. With -e, the new events are defined and enabled at time zero, before
the recorded inputs: instrumentation costs no virtual time, so their lines are those a live run with
them would have printed.

Example:
  $ int3 record -o run.int3log -e 'p:open do_sys_open' --run 'mkdir /tmp/x'
  $ int3 replay run.int3log -e 'r:mkdir sys_mkdir $retval'`;

/** Registers `int3 replay <log> [-e <def>…] [--filter e=expr]… [--format text|json] [--image <vmlinux>]`. */
export function registerReplayCommand(program: Command): void {
  const command = program
    .command('replay')
    .description('replay a recorded run, optionally with probes added after the fact')
    .argument('<log>', 'an event log written by int3 record')
    .option('--image <vmlinux>', 'the kernel image the log was recorded with (default: the sample kernel)');
  addTraceOptions(command, true)
    .addHelpText('after', EXAMPLE)
    .action((logPath: string, options: TraceOptions & { image?: string }, cmd: Command) => {
      const plan = parseTracePlan({ ...options, run: [] }, 'replay');
      let log: Uint8Array;
      try {
        log = new Uint8Array(readFileSync(logPath));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new CliError(
          'usage',
          `cannot read log '${logPath}': ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
          'replay',
        );
      }
      const extra = plan.definitions.length > 0 || plan.filters.length > 0;
      const traced = replayTracedSession(
        log,
        logPath,
        readKernelImage(options.image, 'replay'),
        extra ? (t) => defineEvents(t, plan, 'replay') : undefined,
      );
      writeOut(cmd, renderTrace(traced, plan.format));
      const outcome = traced.session.lastRun;
      if (outcome) checkOutcome(outcome);
    });
}
