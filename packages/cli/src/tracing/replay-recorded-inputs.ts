import { KernelError, type ValidLog } from '@int3/kernel';
import { CliError } from '../cli-error.js';
import type { Interrupt } from '../runtime/interrupt.js';
import type { Terminal } from '../runtime/terminal.js';
import { applyYielding } from './apply-yielding.js';
import { progressLine, type SlicedOutcome } from './run-workloads-sliced.js';
import type { TracedSession } from './traced-session.js';

/** What {@link replayRecordedInputs} needs besides the session and the log. */
export interface ReplayInputsOptions {
  /** Check every recorded checkpoint's state hash (only without probes added at replay). */
  readonly verify: boolean;
  readonly interrupt: Interrupt;
  readonly terminal?: Terminal;
  /** Called after each recorded run (a slice of the recorded run): where the trace is written. */
  readonly onRun?: () => void;
  /** Applies each input (e.g. under the plugin watchdog); an exception it throws ends the replay. */
  readonly contain?: <T>(apply: () => T) => T;
}

/**
 * Applies a recorded log's inputs, in order, to a session booted from its config and stopped before
 * the first input (where the caller added its own probes and tracers), as `Session.replay` does: with
 * `verify`, every entry the replay journals must be the recorded one (checkpoints with their state
 * hashes, caused events) and the final state hash the end record's. Only the log's whole inputs are
 * applied (an incomplete log stops at its last checkpoint). Between two runs
 * it yields to the event loop, redraws the progress line and stops when Ctrl-C was pressed (a
 * recording made by `int3 record` holds a run per slice of virtual time).
 *
 * @see Session.replay
 */
export async function replayRecordedInputs(
  t: TracedSession,
  log: ValidLog,
  logName: string,
  options: ReplayInputsOptions,
): Promise<SlicedOutcome | undefined> {
  const s = t.session;
  if (options.verify) s.expectLog(log.entries);
  try {
    for (let n = 0; n < log.replayable; n++) {
      const entry = log.entries[n];
      if (!entry.type.startsWith('input:')) continue;
      const progress = () => options.terminal?.progress(progressLine(t));
      const stoppedBy = await applyYielding(s, entry, options.interrupt, progress, options.contain);
      if (stoppedBy) return { reason: 'interrupted', at: s.machine.clock(0), signal: stoppedBy };
      if (options.verify) s.verifyReplayed(logName);
      if (entry.type !== 'input:run') continue;
      options.onRun?.();
      options.terminal?.progress(progressLine(t));
      await new Promise((resolve) => setImmediate(resolve));
      const signal = options.interrupt.signal;
      if (signal) return { reason: 'interrupted', at: s.machine.clock(0), signal };
    }
    if (options.verify && log.end && s.hash() !== log.end.hash) {
      throw new KernelError('BAD_LOG', `${logName}: replay diverged at the end record (final state hash differs)`);
    }
    return undefined;
  } catch (error) {
    if (error instanceof KernelError) {
      const message = error.message.startsWith(`${logName}: `) ? error.message : `${logName}: ${error.message}`;
      throw new CliError('usage', `cannot replay ${message}`, 'replay');
    }
    throw error;
  } finally {
    options.terminal?.endProgress();
  }
}
