import { KPROBE_EVENTS_README } from '../probe-events/kprobe-events-readme.js';

/**
 * The `README` file: a short guide to the files this tracefs models, then the `kprobe_events` block
 * whose feature strings the ftrace selftests grep for.
 *
 * @see kernel/trace/trace.c readme_msg
 */
export const TRACEFS_README = `tracing mini-HOWTO:

# echo 0 > tracing_on : quick way to disable tracing
# echo 1 > tracing_on : quick way to re-enable tracing

 Important files:
  trace\t\t\t- The static contents of the buffer
\t\t\t  To clear the buffer write into this file: echo > trace
  trace_pipe\t\t- A consuming read to see the contents of the buffer
\t\t\t  (here non-blocking: an empty buffer reads as nothing at once)
  buffer_size_kb\t- View and modify size of per cpu buffer
  buffer_total_size_kb  - view total size of all cpu buffers
  per_cpu/\t\t- Directory with trace, trace_pipe and stats of each CPU's buffer
  saved_cmdlines\t- The pid and comm of every task that hit an event
  tracing_on\t\t- A flag to enable writing to the buffer (1) or not (0)
  error_log\t- error log for failed commands (that support it)
  available_events\t- list of all events that can be enabled
  events/\t\t- Directory containing all trace event subsystems:
      enable\t\t- Write 0/1 to enable/disable tracing of all events
  events/<system>/\t- Directory containing all trace events for <system>:
      enable\t\t- Write 0/1 to enable/disable tracing of all <system> events
  events/<system>/<event>/\t- Directory containing control files for <event>:
      enable\t\t- Write 0/1 to enable/disable tracing of <event>
      filter\t\t- If set, only events passing filter are traced
      format\t\t- The record layout of <event> and how it prints
      id\t\t- The event id (common_type)
  kprobe_profile\t- Hits and misses of each kprobe event
${KPROBE_EVENTS_README}`;
