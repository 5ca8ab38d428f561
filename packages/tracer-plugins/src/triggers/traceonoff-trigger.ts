import { TriggerType } from './event-trigger.js';
import { simpleCommand, spendCount } from './event-trigger-command.js';

/**
 * `traceon[:N] [if FILTER]`: turns `tracing_on` on; the counted form spends a firing only when
 * tracing was off. It runs before the record is written, so the hit that turns tracing on is traced.
 *
 * @see kernel/trace/trace_events_trigger.c traceon_trigger(), traceon_count_trigger(), trigger_traceon_cmd
 */
export const traceonCommand = simpleCommand({
  name: 'traceon',
  type: TriggerType.TRACE_ONOFF,
  post: false,
  fn: (_t, _hit, ctx) => {
    ctx.buffer.tracingOn = true;
  },
  countFn: (t, _hit, ctx) => {
    if (ctx.buffer.tracingOn || !spendCount(t)) return;
    ctx.buffer.tracingOn = true;
  },
});

/**
 * `traceoff[:N] [if FILTER]`: turns `tracing_on` off, after the record is written (a post trigger), so
 * the hit that stops tracing is the last one traced; the counted form spends a firing only when
 * tracing was on.
 *
 * @see kernel/trace/trace_events_trigger.c traceoff_trigger(), traceoff_count_trigger(), trigger_traceoff_cmd
 */
export const traceoffCommand = simpleCommand({
  name: 'traceoff',
  type: TriggerType.TRACE_ONOFF,
  post: true,
  fn: (_t, _hit, ctx) => {
    ctx.buffer.tracingOn = false;
  },
  countFn: (t, _hit, ctx) => {
    if (!ctx.buffer.tracingOn || !spendCount(t)) return;
    ctx.buffer.tracingOn = false;
  },
});
