import { formatTimestamp, type RunOutcome } from '@int3/kernel';
import type { Interrupt, StopSignal } from '../runtime/interrupt.js';
import type { Terminal } from '../runtime/terminal.js';
import type { TracedSession } from './traced-session.js';
import { probeHits } from './tracefs-files.js';

/** Virtual time one slice of a long run covers: 5 ms (about 0.1 s of host time). */
export const SLICE_NS = 5_000_000;

/** How {@link runWorkloadsSliced} ended: as the machine's run did, or interrupted by Ctrl-C. */
export type SlicedOutcome =
  | RunOutcome
  | { readonly reason: 'interrupted'; readonly at: number; readonly signal: StopSignal };

/** What a sliced run needs besides the session. */
export interface SlicedRunOptions {
  readonly interrupt: Interrupt;
  readonly terminal?: Terminal;
  readonly sliceNs?: number;
  /** Called after each slice (and before Ctrl-C is checked): where the trace is written as it comes. */
  readonly onSlice?: () => void;
  /** Runs each slice (e.g. under the plugin watchdog); an exception it throws ends the run. */
  readonly contain?: <T>(slice: () => T) => T;
  /** Checked after each slice: true ends the run there, as `{ reason: 'stopped' }` (bpftrace's exit()). */
  readonly until?: () => boolean;
}

/**
 * Starts the workloads together and runs until all exited, as `Session.runWorkloads` does, but in
 * slices of virtual time (`input:run` with a deadline, so a log records and replays the same rounds:
 * a deadline is checked at round boundaries only, so slicing changes nothing the guest sees). Between
 * slices it yields to the event loop — where signals are delivered — redraws the progress line, and
 * stops when SIGINT, SIGTERM or SIGHUP came.
 *
 * @see Session.runWorkloads
 * @example
 * const outcome = await runWorkloadsSliced(t, [['cat', '/etc/motd']], { interrupt });
 */
export async function runWorkloadsSliced(
  t: TracedSession,
  workloads: readonly (readonly string[])[],
  options: SlicedRunOptions,
): Promise<SlicedOutcome> {
  const s = t.session;
  const m = s.machine;
  const first = s.spawned.length;
  for (const argv of workloads) s.apply({ type: 'input:spawn', argv: [...argv] });
  const pids = s.spawned.slice(first).map((task) => task.pid);
  const slice = options.sliceNs ?? SLICE_NS;
  try {
    for (;;) {
      const input = { type: 'input:run', pids, deadlineNs: m.clock(0) + slice };
      if (options.contain) options.contain(() => s.apply(input));
      else s.apply(input);
      const outcome = s.lastRun!;
      options.onSlice?.();
      if (outcome.reason !== 'time') return outcome;
      if (options.until?.()) return { reason: 'stopped' };
      options.terminal?.progress(progressLine(t));
      await new Promise((resolve) => setImmediate(resolve));
      const signal = options.interrupt.signal;
      if (signal) return { reason: 'interrupted', at: m.clock(0), signal };
    }
  } finally {
    options.terminal?.endProgress();
  }
}

/** `12.3 M insns  0.012345 s virtual  42 hits`: what the progress line shows. */
export function progressLine(t: TracedSession): string {
  const m = t.session.machine;
  let insns = 0;
  for (const cpu of m.cpus) insns += cpu.retired;
  return `${(insns / 1e6).toFixed(1)} M insns  ${formatTimestamp(m.clock(0)).trim()} s virtual  ${probeHits(t.fs)} hits`;
}
