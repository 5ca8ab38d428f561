import type { TracedSession } from './traced-session.js';
import { definedEvents } from './tracefs-files.js';

/**
 * The `hist` files of the events that have hist triggers, for printing after the trace: one event's
 * file as it reads, several each under a `==> events/GROUP/EVENT/hist <==` line (as `head` heads
 * several files); '' when no event has a hist trigger.
 *
 * @see kernel/trace/trace_events_hist.c hist_show()
 */
export function histReports(t: TracedSession): string {
  const files = definedEvents(t.fs)
    .map((e) => `events/${e.group}/${e.name}/hist`)
    .map((path) => ({ path, text: t.fs.read(path) }))
    .filter((f) => f.text !== '');
  if (files.length === 1) return files[0].text;
  return files.map((f, i) => `${i > 0 ? '\n' : ''}==> ${f.path} <==\n${f.text}`).join('');
}
