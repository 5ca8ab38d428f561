import { Style, type Terminal } from '../runtime/terminal.js';

const LINE = /^(\s*)(.+-\d+)(\s+)(\[\d+\])(\s+\S+\s+)(\d+\.\d+)(: )([^:\s]+)(: .*)?$/;

/**
 * ftrace lines painted for a terminal: the task (`comm-pid`) cyan, the CPU dim, the timestamp yellow,
 * the event name bold green; other lines (headers) dim. Unchanged when stdout takes no colours.
 *
 * @see kernel/trace/trace_output.c trace_print_context() (the columns)
 */
export function colorizeTrace(text: string, term: Terminal): string {
  if (!term.colorOut) return text;
  return text
    .split('\n')
    .map((line) => {
      if (line === '') return line;
      const m = LINE.exec(line);
      if (!m) return line.startsWith('#') ? term.paintOut(Style.dim, line) : line;
      const [, lead, task, gap, cpu, flags, ts, colon, event, rest] = m;
      return `${lead}${term.paintOut(Style.cyan, task)}${gap}${term.paintOut(Style.dim, cpu)}${flags}${term.paintOut(Style.yellow, ts)}${colon}${term.paintOut(Style.boldGreen, event)}${rest ?? ''}`;
    })
    .join('\n');
}
