import { FILTER_WRITE_MAX } from '../filter/event-filter.js';
import { logFilterError } from '../filter/filter-error.js';
import { eventFormatFile } from '../probe-events/event-format-file.js';
import { histShow } from '../triggers/hist/hist-trigger.js';
import type { TracerKprobes } from '../view/tracer-kprobes.js';
import type { KprobeEvents } from './kprobe-events.js';
import { parseEnable } from './parse-switch.js';
import { TraceFsError } from './trace-fs-error.js';
import { dir, file, type TraceFsNode } from './trace-fs-node.js';
import type { TraceKprobeEvent } from './trace-kprobe-event.js';

/** `enable` of several events: `0`, `1`, or `X` when mixed. @see kernel/trace/trace_events.c system_enable_read() */
function enableState(events: readonly TraceKprobeEvent[]): string {
  const on = events.filter((e) => e.enabled).length;
  if (on === 0) return '0\n';
  return on === events.length ? '1\n' : 'X\n';
}

function setAll(k: TracerKprobes, events: readonly TraceKprobeEvent[], on: boolean): void {
  for (const e of events) e.setEnabled(k, on);
}

function eventNode(k: TracerKprobes, ev: TraceKprobeEvent, leaf: string | undefined): TraceFsNode | undefined {
  switch (leaf) {
    case undefined:
      return dir(() => ['enable', 'filter', 'format', 'hist', 'id', 'trigger']);
    case 'enable':
      return file(
        () => ev.file.enableText(),
        (t) => ev.setEnabled(k, parseEnable(t, `${ev.group}/${ev.name}/enable`)),
      );
    case 'filter':
      return file(
        () => ev.filter.read(),
        (t) => {
          const r = ev.filter.write(t);
          if (r.ok) return;
          if ('tooLong' in r) {
            throw new TraceFsError(
              'EINVAL',
              `filter for ${ev.group}/${ev.name} too long: a write must be under a page (${FILTER_WRITE_MAX} bytes)`,
            );
          }
          logFilterError(ev.triggers.context, t.replace(/\s+$/, ''), r.error);
          throw new TraceFsError('EINVAL', `bad filter for ${ev.group}/${ev.name}: read filter for details`);
        },
      );
    case 'format':
      return file(() => eventFormatFile(ev.type));
    case 'hist':
      return file(() => histShow(ev.triggers, ev.triggers.context.formatContext));
    case 'id':
      return file(() => `${ev.id}\n`);
    case 'trigger':
      return file(
        () => ev.triggers.show(),
        (t, append) => ev.triggers.write(t, append),
      );
    default:
      return undefined;
  }
}

/**
 * The `events/` tree: `events/enable`, `events/<grp>/enable`, and per event `enable`, `filter`,
 * `format`, `hist`, `id` and `trigger`. `parts` is the path below `events/`.
 *
 * @see kernel/trace/trace_events.c event_create_dir(), system_enable_write(), event_enable_write()
 */
export function eventsNode(k: TracerKprobes, events: KprobeEvents, parts: readonly string[]): TraceFsNode | undefined {
  const all = events.events;
  const groups = [...new Set(all.map((e) => e.group))];
  const [group, name, leaf, extra] = parts;
  if (extra !== undefined) return undefined;
  if (group === undefined) return dir(() => ['enable', ...groups]);
  if (group === 'enable' && name === undefined) {
    return file(
      () => enableState(events.events),
      (t) => setAll(k, events.events, parseEnable(t, 'events/enable')),
    );
  }
  const inGroup = () => events.events.filter((e) => e.group === group);
  if (inGroup().length === 0) return undefined;
  if (name === undefined) return dir(() => ['enable', ...inGroup().map((e) => e.name)]);
  if (name === 'enable' && leaf === undefined) {
    return file(
      () => enableState(inGroup()),
      (t) => setAll(k, inGroup(), parseEnable(t, `events/${group}/enable`)),
    );
  }
  const ev = events.event(group, name);
  return ev ? eventNode(k, ev, leaf) : undefined;
}
