import { incompleteLogMessage, KernelError, type ValidLog } from '@int3/kernel';
import { PluginError, type TracerHost } from '@int3/tracer-plugins';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { CliTokens } from '../container/cli-tokens.js';
import { createCliContainer } from '../container/create-cli-container.js';
import { replayGdb } from '../gdb/replay-gdb.js';
import { describeMachineAt } from '../inspect/describe-machine-at.js';
import { environmentOf } from '../runtime/cli-environment.js';
import { globalOptions } from '../runtime/global-options.js';
import { type Interrupt, interruptedBy, type StopSignal, yieldForSignal } from '../runtime/interrupt.js';
import { readBoundedFile } from '../runtime/read-bounded-file.js';
import type { Terminal } from '../runtime/terminal.js';
import { addTraceOptions } from '../tracing/add-trace-options.js';
import { YIELD_EVERY_MS } from '../tracing/apply-yielding.js';
import { type BpftraceWriter, pumpBpftrace, startBpftrace } from '../tracing/bpftrace-run.js';
import { histReports } from '../tracing/hist-reports.js';
import { finishTracers, pluginFailure, settlePlugins, startTracers } from '../tracing/plugin-tracers.js';
import { replayRecordedInputs } from '../tracing/replay-recorded-inputs.js';
import { checkedLog, replayedOutcome } from '../tracing/replay-trace.js';
import { checkOutcome, defineEvents } from '../tracing/run-trace.js';
import type { SlicedOutcome } from '../tracing/run-workloads-sliced.js';
import { createTraceOutput } from '../tracing/trace-output.js';
import { parseTracePlan, type TraceOptions } from '../tracing/trace-plan.js';
import { stdoutSink } from '../tracing/trace-sink.js';
import {
  type KernelImageFile,
  readKernelImage,
  replayTracedSession,
  type TracedSession,
} from '../tracing/traced-session.js';
import { TRACER_START, TracerInputs } from '../tracing/tracer-inputs.js';
import { writeOut } from '../write-out.js';
import { CommonOptions } from './common-options.js';
import { printTrace } from './trace-command.js';

const EXAMPLE = `
Without -e, the state hash of every checkpoint is verified and the trace printed is byte for byte the
one the recorded run printed. With -e (or --plugin), the new events are defined and enabled at time
zero, before the recorded inputs: instrumentation costs no virtual time, so their lines are those a
live run with them would have printed.

--at N stops right after event N of the log (N = 0 is the config entry; event N is line N + 2 of the
file) and prints that event, the registers of the CPU it happened on, its task and the code at rip.

Examples:
  $ int3 record -o run.int3log -e 'p:open do_sys_open' --run 'cat /etc/motd'
  $ int3 replay run.int3log -e 'r:ret do_sys_open $retval'
  $ int3 replay run.int3log --bpftrace 'kprobe:vfs_read { @[comm] = count(); }'
  $ int3 replay run.int3log --at 12
  event 12 of 15: trap:raised cpu=0 vector=3 name="#BP" rip=0xffffffff81001c81 retired=10051
  ...`;

/** Options of `int3 replay`. */
interface ReplayOptions extends TraceOptions {
  readonly image?: string;
  readonly at?: string;
  readonly bpftrace?: string;
  readonly allowIncomplete?: boolean;
  readonly gdb?: string;
}

/** The largest log `replay` reads. */
export const MAX_LOG_BYTES = 2 ** 31 - 1;

/**
 * Registers `int3 replay <log> [-e <def>…] [--filter e=expr]… [--trigger e=cmd]… [--format text|json|chrome]
 * [--at <event#>] [--image <vmlinux>]`.
 */
export function registerReplayCommand(program: Command): void {
  const command = program
    .command('replay')
    .description('replay a recorded run, optionally with probes added after the fact, or stop at an event')
    .argument('<log>', 'an event log written by int3 record')
    .addOption(CommonOptions.image('the kernel image the log was recorded with (default: the sample kernel)'))
    .option('--at <event#>', 'stop right after this event of the log and show registers, task and code')
    .option('--allow-incomplete', 'replay a log without its end record (cut off) up to its last whole input')
    .option(
      '--gdb <[host:]port>',
      'serve gdb (target remote :PORT) on the recorded run, forwards and backwards (reverse-stepi, reverse-continue)',
    )
    .option(
      '--bpftrace <program>',
      "run a bpftrace program over the recorded run, retroactively: its output is the live run's (int3 bpftrace)",
    );
  addTraceOptions(command, true)
    .addHelpText('after', EXAMPLE)
    .action(async (logPath: string, options: ReplayOptions, cmd: Command) => {
      const plan = parseTracePlan({ ...options, run: [] }, 'replay');
      const log = readLog(logPath);
      const image = readKernelImage(options.image, 'replay');
      if (image.linked !== undefined) {
        throw new CliError(
          'usage',
          `--image '${options.image}' is not a kernel image (a log is replayed on its kernel)`,
          'replay',
        );
      }
      const valid = checkedLog(log, logPath, options.allowIncomplete === true);
      if (!valid.end) {
        environmentOf(cmd).writeErr(
          `int3: ${incompleteLogMessage(valid, logPath)}: replaying up to there (--allow-incomplete)\n`,
        );
      }
      if (options.gdb !== undefined) {
        const g = globalOptions(cmd);
        const added =
          plan.definitions.length > 0 ||
          plan.filters.length > 0 ||
          plan.triggers.length > 0 ||
          options.bpftrace !== undefined ||
          options.at !== undefined;
        if (added || g.plugins.length > 0 || g.tracers.length > 0) {
          throw new CliError(
            'usage',
            '--gdb serves the recorded run: it takes no --at, -e, --filter, --trigger, --bpftrace, --plugin or --tracer',
            'replay',
          );
        }
        const { writeErr, interrupt } = environmentOf(cmd);
        await replayGdb({ log, logPath, valid, image, imagePath: options.image, writeErr, interrupt }, options.gdb);
        return;
      }
      if (options.at !== undefined) {
        const g = globalOptions(cmd);
        const added =
          plan.definitions.length > 0 ||
          plan.filters.length > 0 ||
          plan.triggers.length > 0 ||
          options.bpftrace !== undefined;
        if (added || g.plugins.length > 0 || g.tracers.length > 0) {
          throw new CliError(
            'usage',
            '--at shows the recorded run: it takes no -e, --filter, --trigger, --bpftrace, --plugin or --tracer',
            'replay',
          );
        }
        await replayAt(cmd, log, logPath, image, options.at, valid);
        return;
      }
      const globals = globalOptions(cmd);
      // A run that started tracers replays them from its log: --plugin then only makes theirs available.
      const recordedTracers = valid.entries.some((e) => e.type === TRACER_START);
      const addedTracers = globals.tracers.length > 0 || (globals.plugins.length > 0 && !recordedTracers);
      const extra =
        plan.definitions.length > 0 ||
        plan.filters.length > 0 ||
        plan.triggers.length > 0 ||
        addedTracers ||
        options.bpftrace !== undefined;
      // Step 1: boot from the log's config, stopped before its first input (no log is written: the
      // events the inputs cause are not journaled).
      const c = createCliContainer(cmd, () =>
        replayTracedSession(log, logPath, image, -1, { recordEvents: false, allowIncomplete: true }),
      );
      const traced = c.get<TracedSession>(CliTokens.TracedSession);
      const host = await c.getAsync<TracerHost>(CliTokens.TracerHost);
      const terminal = c.get<Terminal>(CliTokens.Terminal);
      // Step 2: the probes and tracers added after the fact, at time zero.
      if (plan.definitions.length > 0 || plan.filters.length > 0 || plan.triggers.length > 0) {
        defineEvents(traced, plan, 'replay');
      }
      const tracers = addedTracers ? startTracers(host, globals.tracers, 'replay') : [];
      const recorded = new TracerInputs(traced.session, host);
      const bpftrace = options.bpftrace;
      // The program's output is written as it comes, as `int3 bpftrace` writes it live.
      const bpfWriter: BpftraceWriter = { stdout: (s) => writeOut(cmd, s), stderr: environmentOf(cmd).writeErr };
      let bpfExit: number | undefined;
      const pumpBpf = () => {
        if (bpftrace === undefined) return;
        const code = pumpBpftrace(host, bpfWriter);
        bpfExit ??= code;
      };
      if (bpftrace !== undefined) {
        const format = plan.format === 'json' ? 'json' : 'text';
        startBpftrace(host, { source: bpftrace, filename: 'stdin', format }, 'replay');
        pumpBpf();
      }
      // Step 3: the recorded inputs (state hashes checked unless probes were added: they change the
      // text), the trace written after each recorded run as the live run wrote it.
      const output = createTraceOutput(
        traced,
        plan.format,
        stdoutSink((s) => writeOut(cmd, s)),
        terminal,
      );
      let stopped: SlicedOutcome | undefined;
      let failure: CliError | undefined;
      let timedOut = false;
      try {
        stopped = await replayRecordedInputs(traced, valid, logPath, {
          verify: !extra,
          interrupt: c.get<Interrupt>(CliTokens.Interrupt),
          terminal,
          onRun: () => {
            output.drain();
            pumpBpf();
          },
          contain: (apply) => host.contained(apply),
        });
      } catch (error) {
        // The watchdog stopped a plugin handler that never returned: the replay ends there.
        if (!(error instanceof PluginError)) throw error;
        timedOut = true;
        if (!host.errors.includes(error)) failure = new CliError('failure', error.message);
      }
      output.finish();
      await settlePlugins(host);
      const reports = histReports(traced) + finishTracers(host, [...tracers, ...recorded.started]);
      printTrace(cmd, { traced, reports }, plan.format === 'text', 'record again with a larger --buffer-size');
      if (bpftrace !== undefined) {
        // After exit() a recorded run goes on (it was recorded without the program), whose later hits
        // the program ignores; what is left to print is its end probes and maps.
        pumpBpf();
        if (bpfExit !== undefined && bpfExit !== 0) process.exitCode = bpfExit;
      }
      // A run the watchdog stopped inside a handler has no outcome to check.
      if (!timedOut) {
        try {
          if (stopped) checkOutcome(stopped);
          replayedOutcome(traced, valid, terminal);
        } catch (error) {
          if (!(error instanceof CliError)) throw error;
          failure = error;
        }
      }
      const failed = pluginFailure(host, globals.verbose, failure);
      if (failed) throw failed;
    });
}

function readLog(logPath: string): Uint8Array {
  return readBoundedFile(
    logPath,
    MAX_LOG_BYTES,
    (reason) => new CliError('usage', `cannot read log '${logPath}': ${reason}`, 'replay'),
  );
}

/**
 * `replay --at N`: replays up to event N and describes the machine there. The replay yields to the
 * event loop every {@link YIELD_EVERY_MS} of host time; a stop signal ends it where it is, and the
 * machine is described at the last event replayed.
 */
async function replayAt(
  cmd: Command,
  log: Uint8Array,
  logPath: string,
  image: KernelImageFile,
  at: string,
  valid: ValidLog,
): Promise<void> {
  const entries = valid.entries;
  const n = Number(at);
  if (!/^\d+$/.test(at) || n >= entries.length) {
    throw new CliError(
      'usage',
      `bad --at '${at}': ${logPath} has events 0 to ${entries.length - 1} (0 is its config entry)`,
      'replay',
    );
  }
  // Stopped before the first input, journaling as the recording did (its entries are numbered as the log's).
  const traced = replayTracedSession(log, logPath, image, -1, { allowIncomplete: true });
  const signal = await replayUpTo(traced, valid, logPath, n, environmentOf(cmd).interrupt);
  const s = traced.session;
  const reached = signal ? Math.min(n, s.position - 1) : n;
  writeOut(cmd, describeMachineAt(traced, reached, entries.length, entries[reached]));
  if (signal) throw interruptedBy(signal, `while replaying up to event ${n}: shown at event ${reached}`);
}

/**
 * Applies the log's inputs until the first stop point after entry `n` (as `Session.replay` with
 * `stopAfterEntry` does), checking every entry against the log, pausing every {@link YIELD_EVERY_MS}
 * to let signals in. Returns the signal that stopped it early.
 */
async function replayUpTo(
  t: TracedSession,
  valid: ValidLog,
  logPath: string,
  n: number,
  interrupt: Interrupt,
): Promise<StopSignal | undefined> {
  const s = t.session;
  s.expectLog(valid.entries);
  let deadline = 0;
  const pause = () => s.position > n || performance.now() >= deadline;
  try {
    for (let e = 0; e < valid.replayable && s.position <= n; e++) {
      const entry = valid.entries[e];
      if (!entry.type.startsWith('input:')) continue;
      deadline = performance.now() + YIELD_EVERY_MS;
      let done = s.applyPausable(entry, pause);
      while (!done && s.position <= n) {
        const signal = await yieldForSignal(interrupt);
        if (signal) return signal;
        deadline = performance.now() + YIELD_EVERY_MS;
        done = s.resume(pause);
      }
      s.verifyReplayed(logPath);
      const signal = await yieldForSignal(interrupt);
      if (signal) return signal;
    }
  } catch (error) {
    if (error instanceof KernelError) throw new CliError('usage', `cannot replay ${error.message}`, 'replay');
    throw error;
  }
  return undefined;
}
