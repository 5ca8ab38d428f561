import type { LogSink } from '@int3/kernel';
import { PluginError, type TracerHost } from '@int3/tracer-plugins';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { traceGdb } from '../gdb/live/trace-gdb.js';
import { GDB_MAX_SNAPSHOTS, GDB_SNAPSHOT_EVERY_NS } from '../gdb/replay-gdb.js';
import { environmentOf } from '../runtime/cli-environment.js';
import { globalOptions } from '../runtime/global-options.js';
import type { Interrupt, StopSignal } from '../runtime/interrupt.js';
import type { Terminal } from '../runtime/terminal.js';
import { addTraceOptions } from '../tracing/add-trace-options.js';
import { histReports } from '../tracing/hist-reports.js';
import { insmodAll, parseInsmod } from '../tracing/insmod-modules.js';
import { finishTracers, pluginFailure, settlePlugins, startTracers } from '../tracing/plugin-tracers.js';
import { checkOutcome, checkWorkloads, defineEvents } from '../tracing/run-trace.js';
import { runWorkloadsSliced, type SlicedOutcome } from '../tracing/run-workloads-sliced.js';
import { createTraceOutput, lostEventsSummary } from '../tracing/trace-output.js';
import { parseTracePlan, type TraceFormat, type TraceOptions } from '../tracing/trace-plan.js';
import { fileSink, STDOUT_PATH, stdoutSink, type TraceSink } from '../tracing/trace-sink.js';
import { createTracedSession, readKernelImage, type TracedSession } from '../tracing/traced-session.js';
import { TracerInputs } from '../tracing/tracer-inputs.js';
import { writeOut } from '../write-out.js';

const EXAMPLE = `
Examples:
  $ int3 trace -e 'p:open do_sys_open dfd=%di filename=+0(%si):string' --run 'cat /etc/motd'
               cat-1       [000] d....     0.000010: open: (do_sys_open+0x0/0x40) dfd=0xffffff9c filename="/etc/motd"
  $ int3 trace -e 'r:mk sys_mkdir $retval' --format json -- mkdir /tmp/x | jq .args
  $ int3 trace -e 'p:open do_sys_open' --run dd --format chrome -o trace.json   # open in ui.perfetto.dev
  $ int3 trace --plugin ./examples/plugin-syscount --run 'cat /etc/motd'       # the plugin's report after
  $ int3 trace --tracer 'funclatency -u vfs_read' --run 'cat /etc/motd'        # bcc's histogram after (int3 tracers)
  $ int3 trace -e 'p:rd vfs_read count=%dx:u64' --trigger 'rd=hist:keys=common_pid.execname:vals=count' --run 'cat /etc/motd'
  $ int3 trace -e 'p:h hrtimer_nanosleep' -e 'r:d do_nanosleep' --run 'syscall nanosleep 1e8'

Workloads: hello, cat PATH, open PATH, mkdir PATH, fork N, dd BLOCKS, net N, spin N, fault, and
syscall NAME [ARGS], one system call as bpftrace's test program makes it: nanosleep [NS] (1e8 is
100 ms), open [PATH], openat [PATH], read [PATH], write [PATH], connect HOST PORT.

Ctrl-C (or SIGTERM, SIGHUP) stops the machine at the next slice of virtual time and prints what was
traced until then. -o writes a temporary file beside the target, renamed when the run ends.
Exit status: 0 ok, 1 the run failed (panic, deadlock, plugin, a workload exited non-zero or was
killed), 2 bad option or probe definition (the kernel's error_log lines, with the caret, are printed
on stderr), 130/143/129 interrupted by SIGINT/SIGTERM/SIGHUP.`;

/** Options of `int3 trace`. */
interface TraceCommandOptions extends TraceOptions {
  readonly image?: string;
  readonly insmod?: string[];
  readonly output?: string | undefined;
  /** `--gdb [HOST:]PORT`: serve gdb on the live run, stopped before its first instruction. */
  readonly gdb?: string | undefined;
}

/** `--gdb`'s description, shared by trace and record. */
export const GDB_OPTION_HELP =
  'serve gdb (target remote :PORT) on the live run, stopped before its first instruction; its resumes and writes are journaled';

/**
 * Registers `int3 trace -e <def>… [--filter e=expr]… [--trigger e=cmd]… [--run <workload>]… [--cpus N]
 * [--format text|json|chrome] [-o file]`: define and enable kprobe events, run workloads to completion,
 * print the trace, then the `hist` tables of `--trigger 'e=hist:…'`, then the reports of the `--plugin` tracers.
 *
 * @see Documentation/trace/kprobetrace.rst
 */
export function registerTraceCommand(program: Command): void {
  const command = program
    .command('trace')
    .description('define kprobe events, run workloads, print the trace (as cat trace_pipe)');
  addTraceOptions(command)
    .option('-o, --output <file>', "write the trace to a file instead of stdout ('-': stdout)")
    .option('--gdb <[host:]port>', GDB_OPTION_HELP)
    .addHelpText('after', EXAMPLE)
    .action(async (workload: string[], options: TraceCommandOptions, cmd: Command) => {
      const toFile = options.output !== undefined && options.output !== STDOUT_PATH;
      const sink = toFile ? () => fileSink(options.output as string) : () => stdoutSink((s) => writeOut(cmd, s));
      const result = await traceRun(cmd, { ...options, workload }, 'trace', sink, !toFile);
      printTrace(cmd, result, result.format === 'text' || toFile);
      if (result.failure) throw result.failure;
    });
}

/** What a traced run printed, and the failure to report after printing it (if any). */
export interface TraceRunResult {
  readonly traced: TracedSession;
  readonly format: TraceFormat;
  readonly terminal: Terminal;
  /** The tracers' reports (`''` without `--plugin` or `--tracer`). */
  readonly reports: string;
  /** The run's failure and the failing tracers, to report after printing everything else. */
  readonly failure?: CliError | undefined;
  /** The signal that stopped the run, if one did. */
  readonly stop?: StopSignal | undefined;
}

/**
 * The shared body of `trace` and `record`: boot (through the container), define, start the tracers
 * (`--tracer`, else every `--plugin` tracer), run in slices (Ctrl-C stops there) writing the trace
 * to the sink `openSink` opens after each slice, collect the reports of the tracers that did not
 * fail. `terminalSink`: the sink is stdout, painted when it is a colour TTY.
 */
export async function traceRun(
  cmd: Command,
  options: TraceCommandOptions,
  command: string,
  openSink: () => TraceSink,
  terminalSink: boolean,
  /** Where the session's log is written as it grows (`record`). */
  logSink?: LogSink,
): Promise<TraceRunResult> {
  const plan = parseTracePlan(options, command);
  const modules = (options.insmod ?? []).map((line) => parseInsmod(line, command));
  const image = readKernelImage(options.image, command);
  if (command === 'record' && image.linked !== undefined) {
    throw new CliError(
      'usage',
      `--image '${options.image}' is not a kernel image: a freestanding ELF is traced with trace, tracefs or call -e, not recorded`,
      command,
    );
  }
  const recordEvents = command === 'record';
  const c = createCliContainer(cmd, () =>
    createTracedSession(image, plan.cpus, {
      recordEvents,
      command,
      sink: logSink,
      ...(options.gdb === undefined ? {} : { snapshotEveryNs: GDB_SNAPSHOT_EVERY_NS, maxSnapshots: GDB_MAX_SNAPSHOTS }),
    }),
  );
  const traced = c.get<TracedSession>(CliTokens.TracedSession);
  const host = await c.getAsync<TracerHost>(CliTokens.TracerHost);
  const terminal = c.get<Terminal>(CliTokens.Terminal);
  const globals = globalOptions(cmd);
  defineEvents(traced, plan, command);
  insmodAll(traced, modules);
  const sink = openSink();
  const output = createTraceOutput(traced, plan.format, sink, terminalSink ? terminal : undefined);
  const journal = new TracerInputs(traced.session, host);
  const tracers = startTracers(host, globals.tracers, command, (name, args) => journal.start(name, args));
  let failure: CliError | undefined;
  let outcome: SlicedOutcome | undefined;
  let killed = false;
  try {
    if (options.gdb !== undefined) {
      outcome = await traceGdb(traced, plan.workloads, {
        address: options.gdb,
        command,
        imagePath: options.image,
        interrupt: c.get<Interrupt>(CliTokens.Interrupt),
        writeErr: environmentOf(cmd).writeErr,
        onStop: () => output.drain(),
      });
      killed = outcome === undefined;
    } else {
      outcome = await runWorkloadsSliced(traced, plan.workloads, {
        interrupt: c.get<Interrupt>(CliTokens.Interrupt),
        terminal,
        onSlice: () => output.drain(),
        contain: (slice) => host.contained(slice),
      });
    }
  } catch (error) {
    // The watchdog stopped a plugin handler that never returned: the run ends there, its trace is kept.
    if (!(error instanceof PluginError)) throw error;
    if (!host.errors.includes(error)) failure = new CliError('failure', error.message);
  }
  output.finish();
  sink.close();
  await settlePlugins(host);
  // The hist tables come after the trace, as `cat events/…/hist` would, then the tracers' reports
  // (stopped through the log first: their probes are unregistered inside an input).
  journal.stop();
  const reports = histReports(traced) + finishTracers(host, tracers);
  const stop = outcome?.reason === 'interrupted' ? outcome.signal : undefined;
  const result = { traced, format: plan.format, terminal, reports, stop };
  try {
    // Killed from gdb: the run stops where gdb left it, as it asked.
    if (outcome && !killed) {
      checkOutcome(outcome);
      checkWorkloads(traced.session.spawned);
    }
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    failure = error;
  }
  return { ...result, failure: pluginFailure(host, globals.verbose, failure) };
}

/**
 * Finishes a traced run whose trace was written as it ran: one stderr line if the ring buffer lost
 * records, then the tracers' reports — on stdout with `reportsOnStdout` (false when stdout holds
 * JSON or a log that they would spoil: then on stderr).
 */
export function printTrace(
  cmd: Command,
  result: Pick<TraceRunResult, 'traced' | 'reports'>,
  reportsOnStdout: boolean,
  advice = 'raise --buffer-size',
): void {
  const lost = lostEventsSummary(result.traced, advice);
  if (lost !== undefined) environmentOf(cmd).writeErr(`int3: ${lost}\n`);
  if (result.reports === '') return;
  if (reportsOnStdout) writeOut(cmd, result.reports);
  else environmentOf(cmd).writeErr(result.reports);
}
