import { incompleteLogMessage, KernelError, Session, type ValidLog } from '@int3/kernel';
import { CliError } from '../cli-error.js';
import { formatCliError } from '../format-cli-error.js';
import type { Interrupt } from '../runtime/interrupt.js';
import { Terminal } from '../runtime/terminal.js';
import { histReports } from './hist-reports.js';
import { replayRecordedInputs } from './replay-recorded-inputs.js';
import { checkOutcome, checkWorkloads, defineEvents } from './run-trace.js';
import { createTraceOutput, lostEventsSummary } from './trace-output.js';
import { parseTracePlan } from './trace-plan.js';
import { stdoutSink } from './trace-sink.js';
import {
  type KernelImageFile,
  readKernelImage,
  replayTracedSession,
  TRACER_INPUT_SCHEMAS,
  type TracedSession,
} from './traced-session.js';

/** What {@link replayTrace} replays with: `int3 replay`'s options without plugins. */
export interface ReplayTraceOptions {
  /** `-e`: kprobe_events lines defined and enabled at time zero, before the recorded inputs. */
  readonly event?: readonly string[];
  /** `--filter EVENT=EXPR`. */
  readonly filter?: readonly string[];
  /** `--trigger EVENT=COMMAND`. */
  readonly trigger?: readonly string[];
  /** `--allow-incomplete`. */
  readonly allowIncomplete?: boolean;
  /** Stops the replay between two recorded runs (Ctrl-C), as it stops `int3 replay`. */
  readonly interrupt: Interrupt;
  /** Standard output and standard error (neither a terminal). */
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  /** The kernel the log was recorded on (default: the sample kernel). */
  readonly image?: KernelImageFile;
  /** Called with the machine booted from the log, before anything is added or replayed. */
  readonly onBooted?: (traced: TracedSession) => void;
}

/** How a {@link replayTrace} ended. */
export interface ReplayTraceResult {
  /** The exit status `int3 replay` has for it: 0, 1, 2, or 128 + the signal that stopped it. */
  readonly status: number;
  /** The machine as the replay left it (undefined when the log did not boot). */
  readonly traced?: TracedSession | undefined;
}

/**
 * `int3 replay LOG [-e DEF]… [--filter E=X]… [--trigger E=C]… [--allow-incomplete]` with its output
 * in `out` and `err` (as on pipes) and its exit status returned: the log is checked, its machine booted
 * from its config, the added events defined at time zero, the recorded inputs applied (state hashes
 * checked when nothing was added), the trace written after each recorded run, then the hist tables,
 * and a failed or interrupted run reported in int3's words. It is the replay command without plugins,
 * bpftrace, `--at` or `--format`, for a host with no Node (the docs playground).
 *
 * @see Session.replay
 * @example
 * const { status } = await replayTrace(bytes, 'run.int3log', { event: ['p:mk sys_mkdir'], interrupt, out, err });
 */
export async function replayTrace(
  log: Uint8Array,
  logName: string,
  options: ReplayTraceOptions,
): Promise<ReplayTraceResult> {
  let traced: TracedSession | undefined;
  const terminal = new Terminal({
    stdoutIsTty: false,
    stderrIsTty: false,
    color: false,
    quiet: false,
    writeErr: options.err,
  });
  try {
    const plan = parseTracePlan(
      { event: [...(options.event ?? [])], filter: [...(options.filter ?? [])], trigger: [...(options.trigger ?? [])] },
      'replay',
    );
    const image = options.image ?? readKernelImage(undefined, 'replay');
    const valid = checkedLog(log, logName, options.allowIncomplete === true);
    if (!valid.end) {
      options.err(`int3: ${incompleteLogMessage(valid, logName)}: replaying up to there (--allow-incomplete)\n`);
    }
    // Step 1: boot from the log's config, stopped before its first input.
    traced = replayTracedSession(log, logName, image, -1, { recordEvents: false, allowIncomplete: true });
    options.onBooted?.(traced);
    // Step 2: the events added after the fact, at time zero.
    const added = plan.definitions.length > 0 || plan.filters.length > 0 || plan.triggers.length > 0;
    if (added) defineEvents(traced, plan, 'replay');
    // Step 3: the recorded inputs, the trace written after each recorded run as the live run wrote it.
    const output = createTraceOutput(traced, 'text', stdoutSink(options.out), terminal);
    const stopped = await replayRecordedInputs(traced, valid, logName, {
      verify: !added,
      interrupt: options.interrupt,
      terminal,
      onRun: () => output.drain(),
    });
    output.finish();
    // Step 4: what follows the trace, then how the recorded run ended.
    const lost = lostEventsSummary(traced, 'record again with a larger --buffer-size');
    if (lost !== undefined) options.err(`int3: ${lost}\n`);
    options.out(histReports(traced));
    if (stopped) checkOutcome(stopped);
    replayedOutcome(traced, valid, terminal);
    return { status: 0, traced };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    options.err(formatCliError(error));
    return { status: error.exitCode, traced };
  }
}

/**
 * How the recorded run ended, checked as the live run checked it: a failed run or workload throws its
 * {@link CliError}; a run sliced by deadlines that ends on one was stopped by a signal when it was
 * recorded, which a note says.
 */
export function replayedOutcome(traced: TracedSession, valid: ValidLog, terminal: Terminal): void {
  const outcome = traced.session.lastRun;
  if (outcome?.reason === 'time') {
    const by = valid.end && valid.end.stop !== 'complete' ? ` by ${valid.end.stop}` : '';
    terminal.note(`the recorded run was interrupted${by} before its workloads exited`);
  } else if (outcome) {
    checkOutcome(outcome);
    checkWorkloads(traced.session.spawned);
  }
}

/**
 * The checked entries of a log; a corrupt or foreign one is a usage error, and so is an incomplete one
 * unless `allowIncomplete`.
 */
export function checkedLog(log: Uint8Array, logPath: string, allowIncomplete: boolean): ValidLog {
  let valid: ValidLog;
  try {
    valid = Session.readLog(log, logPath, TRACER_INPUT_SCHEMAS);
  } catch (error) {
    if (error instanceof KernelError) throw new CliError('usage', `cannot replay ${error.message}`, 'replay');
    throw error;
  }
  if (!valid.end && !allowIncomplete) {
    throw new CliError(
      'usage',
      `cannot replay ${incompleteLogMessage(valid, logPath)}; --allow-incomplete replays it up to there`,
      'replay',
    );
  }
  return valid;
}
