import type { ChromeTraceDocument, ChromeTraceEvent } from './chrome-trace-event.js';

/** Argument values a Chrome Trace event carries. */
export type ChromeTraceArgs = Record<string, string | number | (string | number)[]>;

/** One observation fed to {@link ChromeTraceBuilder}, in time order. */
export interface ChromeTraceHit {
  /** `entry` of a function, its `return`, or an `instant` (a plain kprobe). */
  readonly kind: 'entry' | 'return' | 'instant';
  /** The function (entries and returns pair by it) or the event name. */
  readonly name: string;
  /** `cat` of the event: `kprobe`, `kretprobe`, or the tracefs `group:event`. */
  readonly cat: string;
  /** Virtual time in nanoseconds. */
  readonly ts: number;
  readonly cpu: number;
  /** The task's pid (the thread of the track). */
  readonly tid: number;
  readonly comm: string;
  readonly args?: ChromeTraceArgs;
}

/** How entry/return pairs are written. */
export interface ChromeTraceOptions {
  /** `X` complete events (ts + dur) instead of `B`/`E` pairs; default false. */
  readonly complete?: boolean;
}

/** What the tracks mean, as each CPU's `process_labels` metadata says. */
const TRACK_LABELS = 'pid = CPU number, tid = task pid';

/** An entry still waiting for its return on one task. */
interface OpenEntry {
  readonly hit: ChromeTraceHit;
  /** Index of its placeholder in the event list. */
  readonly index: number;
}

/**
 * Turns a time-ordered stream of entries, returns and instants into a Chrome Trace Event document
 * (the object form, `ts` in µs of virtual time) that Perfetto UI and chrome://tracing open. Tracks are
 * per CPU (`pid` = CPU) and task (`tid` = pid), named by `M` metadata events (`process_name`
 * `CPU <n>`, `thread_name` `<comm>-<pid>`, `process_labels` saying so, and `otherData.pid`/`otherData.tid`). An entry and the next return of the same function on the
 * same task become a `B`/`E` pair (or one `X` event) on the entry's CPU track, so pairs always nest per
 * task: a return pops the task's innermost open entry of that function, and entries above it that
 * never returned (a missed kretprobe) become instant events, as do returns with no entry and entries
 * still open at the end.
 *
 * @see https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU (Trace Event Format)
 * @example
 * const b = new ChromeTraceBuilder();
 * b.add({ kind: 'entry', name: 'vfs_read', cat: 'kprobe', ts: 1000, cpu: 0, tid: 75, comm: 'cat' });
 * b.add({ kind: 'return', name: 'vfs_read', cat: 'kretprobe', ts: 5000, cpu: 0, tid: 75, comm: 'cat' });
 * JSON.stringify(b.document());
 */
export class ChromeTraceBuilder {
  readonly #events: (ChromeTraceEvent | undefined)[] = [];
  readonly #open = new Map<number, OpenEntry[]>();
  /** `cpu:tid` → comm, in first-seen order. */
  readonly #threads = new Map<string, { cpu: number; tid: number; comm: string }>();
  readonly #cpus = new Set<number>();

  constructor(private readonly options: ChromeTraceOptions = {}) {}

  /** Adds one observation; hits must come in time order. */
  add(hit: ChromeTraceHit): void {
    this.#track(hit.cpu, hit.tid, hit.comm);
    if (hit.kind === 'instant') {
      this.#events.push(instant(hit));
      return;
    }
    const stack = this.#open.get(hit.tid) ?? [];
    this.#open.set(hit.tid, stack);
    if (hit.kind === 'entry') {
      stack.push({ hit, index: this.#events.length });
      this.#events.push(undefined); // Filled when the return comes (or turned into an instant).
      return;
    }
    let at = stack.length - 1;
    while (at >= 0 && stack[at].hit.name !== hit.name) at--;
    if (at < 0) {
      this.#events.push(instant(hit));
      return;
    }
    // Entries above the match never returned: they cannot nest inside the pair, so they become instants.
    for (const lost of stack.splice(at + 1)) this.#events[lost.index] = instant(lost.hit);
    const entry = stack.pop() as OpenEntry;
    const e = entry.hit;
    const args = { ...e.args, ...hit.args, ...(hit.cpu !== e.cpu ? { return_cpu: hit.cpu } : {}) };
    if (this.options.complete) {
      this.#events[entry.index] = {
        name: e.name,
        cat: e.cat,
        ph: 'X',
        ts: e.ts / 1000,
        dur: Math.max(0, hit.ts - e.ts) / 1000,
        pid: e.cpu,
        tid: e.tid,
        args,
      };
      return;
    }
    this.#events[entry.index] = {
      name: e.name,
      cat: e.cat,
      ph: 'B',
      ts: e.ts / 1000,
      pid: e.cpu,
      tid: e.tid,
      args: e.args ?? {},
    };
    // The end goes on the entry's CPU track, or the viewer could not pair it after a migration.
    this.#events.push({ name: e.name, cat: hit.cat, ph: 'E', ts: hit.ts / 1000, pid: e.cpu, tid: e.tid, args });
  }

  /**
   * Marks a gap: `count` records of `cpu` were lost before `ts` (ns). It becomes an instant event on
   * the CPU's process track (`s: 'p'`), named `lost <count> events`, so a gap is never silent.
   */
  lost(cpu: number, count: number, ts: number): void {
    this.#cpus.add(cpu);
    this.#events.push({
      name: `lost ${count} events`,
      cat: 'lost',
      ph: 'i',
      s: 'p',
      ts: ts / 1000,
      pid: cpu,
      tid: 0,
      args: { cpu, count },
    });
  }

  /** The document: metadata events first, then every event in time order. */
  document(): ChromeTraceDocument {
    const meta: ChromeTraceEvent[] = [];
    for (const cpu of [...this.#cpus].sort((a, b) => a - b)) {
      meta.push({ name: 'process_name', ph: 'M', pid: cpu, tid: 0, args: { name: `CPU ${cpu}` } });
      meta.push({ name: 'process_sort_index', ph: 'M', pid: cpu, tid: 0, args: { sort_index: cpu } });
      meta.push({ name: 'process_labels', ph: 'M', pid: cpu, tid: 0, args: { labels: TRACK_LABELS } });
    }
    for (const t of this.#threads.values()) {
      meta.push({ name: 'thread_name', ph: 'M', pid: t.cpu, tid: t.tid, args: { name: `${t.comm}-${t.tid}` } });
    }
    const pending = new Map<number, ChromeTraceHit>();
    for (const stack of this.#open.values()) for (const open of stack) pending.set(open.index, open.hit);
    const events: ChromeTraceEvent[] = [];
    this.#events.forEach((e, i) => {
      const hit = pending.get(i);
      if (e !== undefined) events.push(e);
      else if (hit !== undefined) events.push(instant(hit));
    });
    return {
      traceEvents: [...meta, ...events],
      displayTimeUnit: 'ns',
      otherData: { tool: 'int3 chrome-trace', clock: 'virtual', pid: 'CPU number', tid: 'task pid' },
    };
  }

  #track(cpu: number, tid: number, comm: string): void {
    this.#cpus.add(cpu);
    const key = `${cpu}:${tid}`;
    if (!this.#threads.has(key)) this.#threads.set(key, { cpu, tid, comm });
  }
}

/** An instant event on the hit's thread track (`s: 't'`). */
function instant(hit: ChromeTraceHit): ChromeTraceEvent {
  const name = hit.kind === 'return' ? `${hit.name} (return)` : hit.name;
  return { name, cat: hit.cat, ph: 'i', s: 't', ts: hit.ts / 1000, pid: hit.cpu, tid: hit.tid, args: hit.args ?? {} };
}
