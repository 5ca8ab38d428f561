import { TriggerType } from './event-trigger.js';
import { simpleCommand, spendCount } from './event-trigger-command.js';

/**
 * `snapshot[:N] [if FILTER]`: takes a snapshot (the main buffer's records go to `snapshot`) before
 * the hit's record is written. Adding one allocates the snapshot buffer.
 *
 * @see kernel/trace/trace_events_trigger.c snapshot_trigger(), register_snapshot_trigger(), trigger_snapshot_cmd
 */
export const snapshotCommand = simpleCommand({
  name: 'snapshot',
  type: TriggerType.SNAPSHOT,
  post: false,
  fn: (_t, _hit, ctx) => ctx.snapshot.take(),
  countFn: (t, _hit, ctx) => {
    if (spendCount(t)) ctx.snapshot.take();
  },
  onRegister: (ctx) => ctx.snapshot.arm(),
  onUnregister: (ctx) => ctx.snapshot.disarm(),
});
