import type { Interrupt } from '../../runtime/interrupt.js';
import { SLICE_NS, type SlicedOutcome } from '../../tracing/run-workloads-sliced.js';
import type { TracedSession } from '../../tracing/traced-session.js';
import { serveAnnounced } from '../gdb-server.js';
import { MachineTarget } from '../replay/machine-target.js';
import { gdbAddressOption } from '../replay-gdb.js';
import { GDB_INPUT_SCHEMAS, GDB_RUN, GDB_WRITE, gdbRunHandler, gdbRunState, gdbWriteHandler } from './gdb-inputs.js';

/** What `trace --gdb` needs of its command. */
export interface TraceGdbOptions {
  readonly address: string;
  readonly command: string;
  readonly imagePath: string | undefined;
  readonly interrupt: Interrupt;
  readonly writeErr: (text: string) => void;
  /**
   * Called after each slice of the run once gdb has detached: where the trace is written. While gdb
   * holds the machine nothing is written, since going back and forth would print re-executed hits
   * again; what the run traced until the detach is printed then (as much as the trace buffer held).
   */
  readonly onStop: () => void;
}

/** Lets a session carry out (and replay) the inputs a live run under gdb journals. */
export function handleGdbInputs(t: TracedSession): void {
  const machine = () => t.session.machine;
  t.session.handle(GDB_RUN, gdbRunHandler(machine), GDB_INPUT_SCHEMAS.get(GDB_RUN));
  t.session.handle(GDB_WRITE, gdbWriteHandler(machine), GDB_INPUT_SCHEMAS.get(GDB_WRITE));
}

/**
 * `int3 trace … --gdb [HOST:]PORT`: starts the workloads, stops before the first instruction of the
 * first one and serves gdb there. Every resume gdb asks for is journaled as `input:gdb-run` and every
 * register or memory write as `input:gdb-write`, so the run stays a log that replays; backwards, the
 * history so far is re-executed from the session's snapshots. When gdb detaches, the run goes on to
 * its end (as after `detach` from QEMU); when it kills, the run stops there. Returns how the run
 * ended (undefined after a kill).
 */
export async function traceGdb(
  t: TracedSession,
  workloads: readonly (readonly string[])[],
  options: TraceGdbOptions,
): Promise<SlicedOutcome | undefined> {
  const address = gdbAddressOption(options.address, options.command);
  const s = t.session;
  handleGdbInputs(t);
  const first = s.spawned.length;
  for (const argv of workloads) s.apply({ type: 'input:spawn', argv: [...argv] });
  const pids = s.spawned.slice(first).map((task) => task.pid);
  const target = new MachineTarget(t, s.log(), { pids });
  const how = await serveAnnounced({
    address,
    target,
    interrupt: options.interrupt,
    command: options.command,
    imagePath: options.imagePath,
    stopped: `before the first instruction of ${workloads[0]?.[0] ?? 'the run'}`,
    exposure: 'change the run',
    writeErr: options.writeErr,
  });
  // Back to the end of the history if gdb left the machine in the past (a log ends there), the step
  // probe forgetting where it held the CPUs: the re-run numbers its positions afresh.
  if (s.position !== s.log().length) {
    gdbRunState(s.machine).probe.reset();
    s.seek(s.log().length - 1);
  }
  if (how === 'interrupted' && options.interrupt.signal) {
    return { reason: 'interrupted', at: s.machine.clock(0), signal: options.interrupt.signal };
  }
  if (how === 'kill') return undefined;
  // Detached: on to the end of the run.
  const state = gdbRunState(s.machine);
  if (state.outcome !== undefined) return state.outcome;
  for (;;) {
    s.apply({ type: 'input:run', pids, deadlineNs: s.machine.clock(0) + SLICE_NS });
    options.onStop();
    const outcome = s.lastRun!;
    if (outcome.reason !== 'time') return outcome;
    await new Promise((resolve) => setImmediate(resolve));
    const signal = options.interrupt.signal;
    if (signal) return { reason: 'interrupted', at: s.machine.clock(0), signal };
  }
}
