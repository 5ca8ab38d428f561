import { strerror as kernelStrerror, type RunOutcome, type Task } from '@int3/kernel';
import { TraceFsError } from '@int3/tracer-plugins';
import { CliError } from '../cli-error.js';
import { exitStatusOf } from '../runtime/interrupt.js';
import type { SlicedOutcome } from './run-workloads-sliced.js';
import type { TracePlan } from './trace-plan.js';
import { applyTracefsWrite, type TracedSession } from './traced-session.js';
import { definedEvents } from './tracefs-files.js';
import { unknownSymbolHint } from './unknown-symbol-hint.js';
import { workloadFailures } from './workload-failures.js';

/** The sysctl `--no-optimize` writes 0 to. */
export const KPROBES_OPTIMIZATION = '/proc/sys/debug/kprobes-optimization';

/**
 * Defines and enables the plan's events through tracefs writes (session inputs, so a replay re-applies
 * them): `--buffer-size` first (`echo KIB > buffer_size_kb`), then each definition is appended to `kprobe_events` as `echo DEF >> kprobe_events` would, each
 * filter written to `events/<group>/<event>/filter`, each trigger appended to its `trigger`, then `events/enable` set. A refused definition
 * is a usage error carrying the kernel's `error_log` lines, caret included; a refused filter carries
 * what its `filter` file then reads (the expression, a caret and `parse_error: …`).
 *
 * @see Documentation/trace/kprobetrace.rst (Usage examples)
 */
export function defineEvents(
  t: TracedSession,
  plan: Pick<TracePlan, 'definitions' | 'filters'> & Partial<Pick<TracePlan, 'triggers' | 'optimize' | 'bufferSizeKb'>>,
  command: string,
): void {
  if (plan.bufferSizeKb !== undefined) applyTracefsWrite(t, 'buffer_size_kb', `${plan.bufferSizeKb}\n`, false);
  if (plan.optimize === false) applyTracefsWrite(t, KPROBES_OPTIMIZATION, '0\n', false);
  for (const def of plan.definitions) {
    try {
      applyTracefsWrite(t, 'kprobe_events', `${def}\n`, true);
    } catch (error) {
      if (!(error instanceof TraceFsError)) throw error;
      const log = t.fs.read('error_log').trimEnd();
      const detail = log === '' ? undefined : log.replace(/^\[[ \d.]+\] /gm, '');
      const hint = unknownSymbolHint(t.session.machine.kallsyms, def);
      throw new CliError('usage', `bad probe definition '${def}': ${strerror(error)}${hint}`, command, detail);
    }
  }
  for (const { event, expr } of plan.filters) {
    const path = `events/${event.includes('/') ? event : `${groupOf(t, event, command, '--filter')}/${event}`}/filter`;
    try {
      applyTracefsWrite(t, path, `${expr}\n`, false);
    } catch (error) {
      if (!(error instanceof TraceFsError)) throw error;
      // A refused expression leaves its report in the filter file (text, caret, parse_error), as in
      // the kernel; a write refused before parsing (a page or more) leaves the file as it was.
      const report = t.fs.read(path).trimEnd();
      const parsed = /\n(parse_error: |Error: \()/.test(report);
      const why = parsed ? '' : `: ${error.message.replace(/^[A-Z0-9]+: /, '')}`;
      throw new CliError(
        'usage',
        `bad --filter for ${event}: ${strerror(error)}${why}`,
        command,
        parsed ? report : undefined,
      );
    }
  }
  for (const { event, command: trigger } of plan.triggers ?? []) defineTrigger(t, event, trigger, command);
  if (plan.definitions.length > 0) applyTracefsWrite(t, 'events/enable', '1\n', false);
}

/**
 * Appends one `--trigger` to `events/<group>/<event>/trigger` (as `echo CMD >> trigger`); a refused
 * command is a usage error with the kernel's errno and, for hist triggers, its `error_log` lines.
 *
 * @see Documentation/trace/events.rst (Event triggers)
 */
function defineTrigger(t: TracedSession, event: string, trigger: string, command: string): void {
  const path = `events/${event.includes('/') ? event : `${groupOf(t, event, command, '--trigger')}/${event}`}/trigger`;
  const before = t.fs.errorLog.entries.at(-1);
  try {
    applyTracefsWrite(t, path, `${trigger}\n`, true);
  } catch (error) {
    if (!(error instanceof TraceFsError)) throw error;
    // The entry this write logged (hist parse errors), if any: three lines, the caret included.
    const logged = t.fs.errorLog.entries.at(-1) !== before;
    const log = logged ? t.fs.read('error_log').trimEnd().split('\n').slice(-3).join('\n') : '';
    const detail = log === '' ? undefined : log.replace(/^\[[ \d.]+\] /gm, '');
    const why = error.message.replace(/^[A-Z0-9]+: /, '');
    throw new CliError('usage', `bad --trigger for ${event}: ${strerror(error)}: ${why}`, command, detail);
  }
}

/** Starts the workloads together and runs until all exited; the outcome says how the run ended. */
export function runWorkloads(t: TracedSession, workloads: readonly (readonly string[])[]): RunOutcome {
  return t.session.runWorkloads(workloads);
}

/**
 * A run that did not end with every workload exited is a failure (exit 1), said in one line; one
 * Ctrl-C stopped exits 130.
 */
export function checkOutcome(outcome: SlicedOutcome): void {
  if (outcome.reason === 'done') return;
  if (outcome.reason === 'interrupted') {
    const by = outcome.signal === 'SIGINT' ? 'Ctrl-C' : outcome.signal;
    throw new CliError(
      'interrupted',
      `interrupted (${by}) at ${(outcome.at / 1e9).toFixed(6)} s of virtual time; printed what was recorded until then`,
      undefined,
      undefined,
      exitStatusOf(outcome.signal),
    );
  }
  const why = outcome.reason === 'panic' ? `kernel panic: ${outcome.message}` : `the run ended: ${outcome.reason}`;
  throw new CliError('failure', why);
}

/**
 * A run whose workloads all exited still failed when one of them did (non-zero status, killed by a
 * signal; `fault`'s SIGSEGV excepted): exit 1, naming each.
 */
export function checkWorkloads(tasks: readonly Task[]): void {
  const failures = workloadFailures(tasks);
  if (failures.length > 0) throw new CliError('failure', `the run failed: ${failures.join('; ')}`);
}

/** `Invalid argument` and friends for a tracefs errno, as `strerror(3)` words it. */
export function strerror(error: TraceFsError): string {
  return kernelStrerror(error.code);
}

/** The group of a bare event name; a name two groups define is ambiguous (a usage error naming both). */
function groupOf(t: TracedSession, event: string, command: string, option: string): string {
  const found = definedEvents(t.fs).filter((e) => e.name === event);
  if (found.length === 0) throw new CliError('usage', `${option} names event '${event}', which no -e defines`, command);
  if (found.length > 1) {
    const candidates = found.map((e) => `${e.group}/${e.name}`).join(', ');
    throw new CliError(
      'usage',
      `${option} names event '${event}', which ${found.length} groups define (${candidates}): write group/event, e.g. ${option} ${found[0].group}/${event}=...`,
      command,
    );
  }
  return found[0].group;
}
