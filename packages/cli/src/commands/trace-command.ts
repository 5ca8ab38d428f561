import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { addTraceOptions } from '../tracing/add-trace-options.js';
import { checkOutcome, defineEvents, renderTrace, runWorkloads } from '../tracing/run-trace.js';
import { parseTracePlan, type TraceOptions } from '../tracing/trace-plan.js';
import { createTracedSession, readKernelImage, type TracedSession } from '../tracing/traced-session.js';
import { writeOut } from '../write-out.js';

const EXAMPLE = `
Example:
  $ int3 trace -e 'p:open do_sys_open dfd=%di filename=+0(%si):string' --run 'cat /etc/motd'
               cat-1       [000] d....     0.000010: open: (do_sys_open+0x0/0x40) dfd=0xffffff9c filename="/etc/motd"

Exit status: 0 ok, 1 the run failed (panic, deadlock), 2 bad option or probe definition (the kernel's
error_log lines, with the caret, are printed on stderr).`;

/** Options of `int3 trace`. */
interface TraceCommandOptions extends TraceOptions {
  readonly image?: string;
  readonly output?: string;
}

/**
 * Registers `int3 trace -e <def>… [--filter e=expr]… [--run <workload>]… [--cpus N] [--format text|json]
 * [-o file]`: define and enable kprobe events, run workloads to completion, print the trace.
 *
 * @see Documentation/trace/kprobetrace.rst
 */
export function registerTraceCommand(program: Command): void {
  const command = program
    .command('trace')
    .description('define kprobe events, run workloads, print the trace (as cat trace_pipe)');
  addTraceOptions(command)
    .option('-o, --output <file>', 'write the trace to a file instead of stdout')
    .addHelpText('after', EXAMPLE)
    .action((options: TraceCommandOptions, cmd: Command) => {
      const { text, failure } = traceRun(options, 'trace');
      if (options.output !== undefined) writeFile(options.output, text);
      else writeOut(cmd, text);
      if (failure) throw failure;
    });
}

/** What a traced run printed, and the failure to report after printing it (if any). */
export interface TraceRunResult {
  readonly traced: TracedSession;
  readonly text: string;
  readonly failure?: CliError;
}

/** The shared body of `trace` and `record`: boot, define, run, render. */
export function traceRun(options: TraceCommandOptions, command: string): TraceRunResult {
  const plan = parseTracePlan(options, command);
  const traced = createTracedSession(readKernelImage(options.image, command), plan.cpus);
  defineEvents(traced, plan, command);
  const outcome = runWorkloads(traced, plan.workloads);
  const text = renderTrace(traced, plan.format);
  try {
    checkOutcome(outcome);
    return { traced, text };
  } catch (error) {
    if (error instanceof CliError) return { traced, text, failure: error };
    throw error;
  }
}

/** Writes an output file; a failure to write is a usage error naming the file. */
export function writeFile(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw new CliError('usage', `cannot write '${path}': ${(error as Error).message}`);
  }
}
