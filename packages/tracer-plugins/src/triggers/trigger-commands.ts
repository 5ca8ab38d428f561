import {
  disableEventCommand,
  disableHistCommand,
  enableEventCommand,
  enableHistCommand,
} from './event-enable-trigger.js';
import { histCommand } from './hist/hist-trigger.js';
import { snapshotCommand } from './snapshot-trigger.js';
import { stacktraceCommand } from './stacktrace-trigger.js';
import { traceoffCommand, traceonCommand } from './traceonoff-trigger.js';
import type { TriggerCommandParser } from './trigger-context.js';

/**
 * The trigger commands in the order the kernel registers them, which is the order
 * `# Available triggers:` lists them in.
 *
 * @see kernel/trace/trace_events_trigger.c register_trigger_cmds()
 */
export const TRIGGER_COMMANDS: readonly TriggerCommandParser[] = Object.freeze([
  traceonCommand,
  traceoffCommand,
  snapshotCommand,
  stacktraceCommand,
  enableEventCommand,
  disableEventCommand,
  enableHistCommand,
  disableHistCommand,
  histCommand,
]);
