import type { FieldDescriptor } from '../events/trace-event-type.js';
import type { RingBufferEvent } from '../ring-buffer/ring-buffer-event.js';
import { decodeField } from '../trace-output/decode-field.js';
import { traceFindCmdline } from '../trace-output/trace-find-cmdline.js';
import type { TraceFs } from '../tracefs/trace-fs.js';
import type { TraceKprobeEvent } from '../tracefs/trace-kprobe-event.js';
import { type ChromeTraceArgs, ChromeTraceBuilder, type ChromeTraceOptions } from './chrome-trace-builder.js';
import type { ChromeTraceDocument } from './chrome-trace-event.js';

/** Where a probe record points: the function and the offset in it, or the raw address. */
function locate(fs: TraceFs, address: bigint): { name: string; offset: number } {
  const loc = fs.m.kallsyms.lookup(address);
  return loc ? { name: loc.sym.name, offset: loc.offset } : { name: `0x${address.toString(16)}`, offset: -1 };
}

function u64At(ev: RingBufferEvent, field: FieldDescriptor | undefined): bigint {
  return field ? ev.view.getBigUint64(ev.offset + field.offset, true) : 0n;
}

/** The fetched arguments of a record (every field but the probe head). */
function fetchedArgs(ev: RingBufferEvent, event: TraceKprobeEvent): ChromeTraceArgs {
  const args: ChromeTraceArgs = {};
  for (const f of event.type.fields) {
    if (f.name.startsWith('__probe_')) continue;
    const v = decodeField(ev.bytes, f, ev.offset);
    args[f.name] = v;
  }
  return args;
}

/**
 * The Chrome Trace Event document of the records in a tracefs buffer (non-consuming, every CPU merged
 * by time): a kprobe event at a function's entry and a kretprobe event on the same function pair up
 * per task as `B`/`E` (or `X` with `complete`), other kprobe events are instants named after their
 * event, and returns without an entry are instants too. See {@link ChromeTraceBuilder} for tracks.
 *
 * @see https://perfetto.dev/docs/getting-started/other-formats (JSON trace format)
 * @example
 * fs.write('kprobe_events', 'p:in vfs_read count=%dx\nr:out vfs_read ret=$retval');
 * fs.write('events/kprobes/enable', '1');
 * m.run();
 * const doc = chromeTraceDocument(fs, { complete: true });
 */
export function chromeTraceDocument(fs: TraceFs, options: ChromeTraceOptions = {}): ChromeTraceDocument {
  // Pass 1: the functions some kretprobe event returned from; kprobes at their entry pair with those.
  const returning = new Set<string>();
  const it1 = fs.buffer.iterator();
  for (let ev = it1.nextEntry(); ev !== undefined; ev = it1.nextEntry()) {
    const event = fs.kprobeEvents.eventById(ev.view.getUint16(ev.offset, true));
    if (event?.definitions[0]?.kind !== 'r') continue;
    returning.add(
      locate(
        fs,
        u64At(
          ev,
          event.type.fields.find((f) => f.name === '__probe_func'),
        ),
      ).name,
    );
  }
  // Pass 2: every record as an entry, a return or an instant.
  const builder = new ChromeTraceBuilder(options);
  const it = fs.buffer.iterator();
  for (let ev = it.nextEntry(); ev !== undefined; ev = it.nextEntry()) {
    const event = fs.kprobeEvents.eventById(ev.view.getUint16(ev.offset, true));
    if (event === undefined) continue;
    const tid = ev.view.getInt32(ev.offset + 4, true);
    const common = {
      ts: ev.ts,
      cpu: ev.cpu,
      tid,
      comm: traceFindCmdline(tid, (pid) => fs.savedCmdlines.get(pid)),
      args: { ...fetchedArgs(ev, event), event: `${event.group}/${event.name}` },
    };
    const fields = event.type.fields;
    if (event.definitions[0]?.kind === 'r') {
      const fn = locate(
        fs,
        u64At(
          ev,
          fields.find((f) => f.name === '__probe_func'),
        ),
      );
      builder.add({ ...common, kind: 'return', name: fn.name, cat: 'kretprobe' });
      continue;
    }
    const at = locate(
      fs,
      u64At(
        ev,
        fields.find((f) => f.name === '__probe_ip'),
      ),
    );
    if (at.offset === 0 && returning.has(at.name))
      builder.add({ ...common, kind: 'entry', name: at.name, cat: 'kprobe' });
    else builder.add({ ...common, kind: 'instant', name: event.name, cat: 'kprobe' });
  }
  return builder.document();
}

/**
 * {@link chromeTraceDocument} as JSON text (one line and a newline), ready for a `.json` file that
 * Perfetto UI opens. For the CLI: no tracer plugin instance is needed.
 *
 * @example
 * writeFileSync('trace.json', exportChromeTrace(traceFs, { complete: false }));
 */
export function exportChromeTrace(fs: TraceFs, options: ChromeTraceOptions = {}): string {
  return `${JSON.stringify(chromeTraceDocument(fs, options))}\n`;
}
