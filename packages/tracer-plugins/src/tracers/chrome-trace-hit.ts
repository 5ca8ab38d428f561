import type { FieldDescriptor } from '../events/trace-event-type.js';
import type { RingBufferEvent } from '../ring-buffer/ring-buffer-event.js';
import { decodeField } from '../trace-output/decode-field.js';
import { traceFindCmdline } from '../trace-output/trace-find-cmdline.js';
import type { TraceFs } from '../tracefs/trace-fs.js';
import type { TraceKprobeEvent } from '../tracefs/trace-kprobe-event.js';
import type { ChromeTraceArgs, ChromeTraceHit } from './chrome-trace-builder.js';

/** Where a probe record points: the function and the offset in it, or the raw address. */
export function locateAddress(fs: TraceFs, address: bigint): { name: string; offset: number } {
  const loc = fs.view.symbols.lookup(address);
  return loc ? { name: loc.sym.name, offset: loc.offset } : { name: `0x${address.toString(16)}`, offset: -1 };
}

function u64At(ev: RingBufferEvent, field: FieldDescriptor | undefined): bigint {
  return field ? ev.view.getBigUint64(ev.offset + field.offset, true) : 0n;
}

/** The function a kretprobe record returned from (`__probe_func`). */
export function returnedFunction(fs: TraceFs, ev: RingBufferEvent, event: TraceKprobeEvent): string {
  return locateAddress(
    fs,
    u64At(
      ev,
      event.type.fields.find((f) => f.name === '__probe_func'),
    ),
  ).name;
}

/** The fetched arguments of a record (every field but the probe head). */
function fetchedArgs(ev: RingBufferEvent, event: TraceKprobeEvent): ChromeTraceArgs {
  const args: ChromeTraceArgs = {};
  for (const f of event.type.fields) {
    if (f.name.startsWith('__probe_')) continue;
    args[f.name] = decodeField(ev.bytes, f, ev.offset);
  }
  return args;
}

/**
 * One kprobe-event record as a Chrome trace observation: a kretprobe record is the `return` of its
 * function; a kprobe record at offset 0 of a function in `returning` is its `entry`; any other is an
 * `instant` named after its event.
 */
export function chromeTraceHit(
  fs: TraceFs,
  ev: RingBufferEvent,
  event: TraceKprobeEvent,
  returning: ReadonlySet<string>,
): ChromeTraceHit {
  const tid = ev.view.getInt32(ev.offset + 4, true);
  const common = {
    ts: ev.ts,
    cpu: ev.cpu,
    tid,
    comm: traceFindCmdline(tid, (pid) => fs.savedCmdlines.get(pid)),
    args: { ...fetchedArgs(ev, event), event: `${event.group}/${event.name}` },
  };
  if (event.definitions[0]?.kind === 'r') {
    return { ...common, kind: 'return', name: returnedFunction(fs, ev, event), cat: 'kretprobe' };
  }
  const at = locateAddress(
    fs,
    u64At(
      ev,
      event.type.fields.find((f) => f.name === '__probe_ip'),
    ),
  );
  if (at.offset === 0 && returning.has(at.name)) return { ...common, kind: 'entry', name: at.name, cat: 'kprobe' };
  return { ...common, kind: 'instant', name: event.name, cat: 'kprobe' };
}
