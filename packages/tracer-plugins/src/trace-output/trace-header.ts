/** What the `trace` header reports. */
export interface TraceHeaderInfo {
  /** `entries-in-buffer`. */
  readonly entries: number;
  /** `entries-written`. */
  readonly written: number;
  /** `#P:` — online CPUs. */
  readonly cpus: number;
  /** The current tracer; default `nop`. */
  readonly tracer?: string | undefined;
}

/**
 * The header of the `trace` file with the default `irq-info` option and no tgid column, each line
 * ending in `\n`.
 *
 * @see kernel/trace/trace.c print_trace_header() / print_event_info(), print_func_help_header_irq()
 * @example
 * printTraceHeader({ entries: 2, written: 2, cpus: 4 });
 */
export function printTraceHeader(info: TraceHeaderInfo): string {
  return [
    `# tracer: ${info.tracer ?? 'nop'}`,
    '#',
    `# entries-in-buffer/entries-written: ${info.entries}/${info.written}   #P:${info.cpus}`,
    '#',
    '#                                _-----=> irqs-off/BH-disabled',
    '#                               / _----=> need-resched',
    '#                              | / _---=> hardirq/softirq',
    '#                              || / _--=> preempt-depth',
    '#                              ||| / _-=> migrate-disable',
    '#                              |||| /     delay',
    '#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION',
    '#              | |         |   |||||     |         |',
    '',
  ].join('\n');
}
