import { TriggerType } from './event-trigger.js';
import { simpleCommand, spendCount } from './event-trigger-command.js';

/**
 * `stacktrace[:N] [if FILTER]`: after the hit's record, writes a `<stack trace>` entry of the call
 * chain at the probe (a post trigger).
 *
 * @see kernel/trace/trace_events_trigger.c stacktrace_trigger(), trigger_stacktrace_cmd
 */
export const stacktraceCommand = simpleCommand({
  name: 'stacktrace',
  type: TriggerType.STACKTRACE,
  post: true,
  fn: (_t, hit, ctx) => ctx.stack.write(hit),
  countFn: (t, hit, ctx) => {
    if (spendCount(t)) ctx.stack.write(hit);
  },
});
