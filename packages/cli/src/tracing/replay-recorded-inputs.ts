import { KernelError, type LogEntry } from '@int3/kernel';
import { CliError } from '../cli-error.js';
import type { Interrupt } from '../runtime/interrupt.js';
import type { Terminal } from '../runtime/terminal.js';
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
 * `verify`, each recorded checkpoint must match the state hash the replay reached. Between two runs
 * it yields to the event loop, redraws the progress line and stops when Ctrl-C was pressed (a
 * recording made by `int3 record` holds a run per slice of virtual time).
 *
 * @see Session.replay
 */
export async function replayRecordedInputs(
  t: TracedSession,
  entries: readonly LogEntry[],
  logName: string,
  options: ReplayInputsOptions,
): Promise<SlicedOutcome | undefined> {
  const s = t.session;
  try {
    for (const entry of entries) {
      if (entry.type === 'checkpoint' && options.verify) {
        const ours = s.log().findLast((x) => x.type === 'checkpoint');
        if (ours?.input !== entry.input || ours?.hash !== entry.hash) {
          throw new CliError(
            'usage',
            `cannot replay ${logName}: replay diverged at input #${entry.input} (state hash differs)`,
            'replay',
          );
        }
      }
      if (!entry.type.startsWith('input:')) continue;
      if (options.contain) options.contain(() => s.apply(entry));
      else s.apply(entry);
      if (entry.type !== 'input:run') continue;
      options.onRun?.();
      options.terminal?.progress(progressLine(t));
      await new Promise((resolve) => setImmediate(resolve));
      if (options.interrupt.requested) return { reason: 'interrupted', at: s.machine.clock(0) };
    }
    return undefined;
  } catch (error) {
    if (error instanceof KernelError)
      throw new CliError('usage', `cannot replay ${logName}: ${error.message}`, 'replay');
    throw error;
  } finally {
    options.terminal?.endProgress();
  }
}
