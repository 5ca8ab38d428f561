import { KernelError, type LogEntry, type Session, type SessionSnapshot, type ValidLog } from '@int3/kernel';
import { CliError } from '../cli-error.js';
import { escapeControls } from '../runtime/escape-controls.js';
import { type Interrupt, interruptedBy } from '../runtime/interrupt.js';
import { type KernelImageFile, replayTracedSession } from '../tracing/traced-session.js';
import { parseGdbListenAddress } from './gdb-listen-address.js';
import { serveAnnounced } from './gdb-server.js';
import { gdbRunState } from './live/gdb-inputs.js';
import { MachineTarget } from './replay/machine-target.js';
import { HistoryOutOfReach } from './replay/time-travel.js';

/**
 * Least virtual time between two snapshots of a run under gdb: 100 µs, about 10⁵ instructions per
 * CPU. A reverse step or a seek re-executes at most that much (one instruction at a time, with the
 * step hook), until the run is long enough to hold {@link GDB_MAX_SNAPSHOTS}; then the spacing doubles.
 */
export const GDB_SNAPSHOT_EVERY_NS = 100_000;
/** Most snapshots a run under gdb keeps (pages are shared between snapshots). */
export const GDB_MAX_SNAPSHOTS = 4096;

/**
 * Applies the first `input:run` of a replay, pinning a snapshot right before its first instruction:
 * the start of gdb's history, after the inputs that set the run up. Probe definitions no longer need
 * it (tracefs and kprobes are in every snapshot, so the origin re-runs them); the inputs whose state
 * no snapshot holds still do — a tracer's start, the kretprobe booster's switch — and a reverse
 * search that reaches the start stops here without re-running the set-up. Returns the snapshot.
 */
function applyPinningBegin(s: Session, run: LogEntry): SessionSnapshot | undefined {
  const probe = gdbRunState(s.machine).probe;
  probe.reset();
  probe.visitor = () => true;
  s.machine.kernel.stepHook = probe.hook;
  let done: boolean;
  try {
    done = s.applyPausable(run, probe.stop);
  } finally {
    s.machine.kernel.stepHook = undefined;
    probe.visitor = undefined;
  }
  const pinned = done ? undefined : s.snapshotHere();
  while (!done) done = s.resume(() => false);
  return pinned;
}

/** What `replay --gdb` needs of its command. */
export interface ReplayGdbContext {
  readonly log: Uint8Array;
  readonly logPath: string;
  readonly valid: ValidLog;
  readonly image: KernelImageFile;
  /** The path of the image as the user names it (for the printed gdb command). */
  readonly imagePath: string | undefined;
  readonly writeErr: (text: string) => void;
  readonly interrupt: Interrupt;
}

/** Parses `--gdb`'s value, or a usage error naming it. */
export function gdbAddressOption(text: string, command: string) {
  const address = parseGdbListenAddress(text);
  if (!address) {
    throw new CliError(
      'usage',
      `bad --gdb '${escapeControls(text)}': expected [HOST:]PORT, such as 1234 or 127.0.0.1:1234`,
      command,
    );
  }
  return address;
}

/**
 * `int3 replay LOG --gdb [HOST:]PORT`: replays the whole log once (every state hash checked, the
 * snapshots taken), goes back to the first instruction of the first workload and serves gdb there,
 * forwards and backwards, until it detaches or kills.
 */
export async function replayGdb(c: ReplayGdbContext, addressText: string): Promise<void> {
  const address = gdbAddressOption(addressText, 'replay');
  const traced = replayTracedSession(c.log, c.logPath, c.image, -1, {
    allowIncomplete: true,
    snapshotEveryNs: GDB_SNAPSHOT_EVERY_NS,
    maxSnapshots: GDB_MAX_SNAPSHOTS,
  });
  const s = traced.session;
  let target: MachineTarget;
  try {
    s.expectLog(c.valid.entries);
    let begin: SessionSnapshot | undefined;
    for (let e = 0; e < c.valid.replayable; e++) {
      const entry = c.valid.entries[e];
      if (!entry.type.startsWith('input:')) continue;
      if (begin === undefined && entry.type === 'input:run') begin = applyPinningBegin(s, entry);
      else s.apply(entry);
      s.verifyReplayed(c.logPath);
    }
    target = new MachineTarget(traced, c.valid.entries, undefined, begin);
  } catch (error) {
    if (error instanceof KernelError) throw new CliError('usage', `cannot replay ${error.message}`, 'replay');
    if (error instanceof HistoryOutOfReach) {
      throw new CliError('usage', `--gdb: ${c.logPath}: the start of its run is out of reach`, 'replay');
    }
    throw error;
  }
  const how = await serveAnnounced({
    address,
    target,
    interrupt: c.interrupt,
    command: 'replay',
    imagePath: c.imagePath,
    stopped: 'before the first instruction',
    exposure: 'read the run',
    writeErr: c.writeErr,
  });
  if (how === 'interrupted' && c.interrupt.signal) throw interruptedBy(c.interrupt.signal, 'while serving gdb');
}
