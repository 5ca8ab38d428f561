import type { PtRegs } from '@int3/kernel';
import type { EventFilter } from '../filter/event-filter.js';

/**
 * The trigger types; two triggers of one type cannot sit on one event (EEXIST). `traceon` and
 * `traceoff` share one, as do `enable_event` and `disable_event` (per target event).
 *
 * @see kernel/trace/trace.h enum event_trigger_type
 */
export const TriggerType = Object.freeze({
  NONE: 0,
  TRACE_ONOFF: 1 << 0,
  SNAPSHOT: 1 << 1,
  STACKTRACE: 1 << 2,
  EVENT_ENABLE: 1 << 3,
  EVENT_HIST: 1 << 4,
  HIST_ENABLE: 1 << 5,
} as const);

/**
 * One hit as triggers see it, reused for every hit of a probe: the CPU's registers, the CPU, the
 * record (when a trigger needs it; `rec` is undefined for an unconditional call) and its header.
 */
export interface TriggerHit {
  regs: PtRegs;
  /** The probe's address (`__probe_ip`). */
  probeAddr: bigint;
  cpu: number;
  /** The record header's context: `common_pid`, `common_flags`, `common_preempt_count`. */
  pid: number;
  flags: number;
  preemptCount: number;
  /** Virtual time of the hit in ns. */
  ts: number;
  /** The record's bytes (`view` spans them), at `offset`; undefined for an unconditional call. */
  rec: Uint8Array | undefined;
  view: DataView | undefined;
  offset: number;
}

/**
 * One active trigger (`struct event_trigger_data`): its command, the `:N` count (-1 unlimited), its
 * `if FILTER`, and what it does when it fires.
 *
 * @see kernel/trace/trace.h struct event_trigger_data, struct event_trigger_ops
 */
export interface EventTrigger {
  readonly command: TriggerCommand;
  /** Times it may still fire; -1 for unlimited. */
  count: number;
  /** The text after `if`, as written. */
  readonly filterText: string | undefined;
  readonly filter: EventFilter | undefined;
  /** A paused hist trigger counts nothing. */
  paused: boolean;
  /** Fires. `hit.rec` is set unless the call is unconditional. */
  trigger(hit: TriggerHit): void;
  /** Its line in `trigger`, ending in `\n`. */
  print(): string;
  /** Called once when it is removed. */
  free?(): void;
  /** What it accumulates besides its count (a hist trigger's table), for a machine snapshot. */
  save?(): unknown;
  /** Puts back what {@link save} returned. */
  restore?(state: unknown): void;
  /** For `enable_event`-style triggers: the event it acts on (two triggers clash only on the same one). */
  readonly target?: unknown;
}

/**
 * A trigger command (`struct event_command`): its name, its type, whether it runs after the record is
 * committed (`post`), whether it needs the record's fields (`needsRec`), how a write parses, and what a
 * truncating open of `trigger` removes (`unregAll`).
 *
 * @see kernel/trace/trace.h struct event_command, EVENT_CMD_FL_POST_TRIGGER, EVENT_CMD_FL_NEEDS_REC
 */
export interface TriggerCommand {
  readonly name: string;
  readonly type: number;
  readonly post: boolean;
  readonly needsRec: boolean;
}
