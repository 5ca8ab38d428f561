import { jsonLine } from '../trace-output/json-line.js';
import type { TraceFs } from '../tracefs/trace-fs.js';
import { ChromeTraceBuilder, type ChromeTraceOptions } from './chrome-trace-builder.js';
import type { ChromeTraceDocument } from './chrome-trace-event.js';
import { chromeTraceHit, locateAddress } from './chrome-trace-hit.js';

/**
 * A Chrome Trace Event document built while the machine runs: each {@link drain} consumes the records
 * in the buffer (as `trace_pipe` does, so the buffer never fills between drains) into a
 * {@link ChromeTraceBuilder}. Which kprobe records are function entries is decided from the
 * definitions, not from the records: a kprobe at offset 0 of a function that some kretprobe event
 * probes. Each gap of lost records is an instant event on its CPU's track.
 *
 * @example
 * const chrome = new ChromeTraceStream(fs, { complete: true });
 * // after each slice of the run:
 * chrome.drain();
 * writeFileSync('trace.json', chrome.text());
 */
export class ChromeTraceStream {
  readonly #fs: TraceFs;
  readonly #builder: ChromeTraceBuilder;

  constructor(fs: TraceFs, options: ChromeTraceOptions = {}) {
    this.#fs = fs;
    this.#builder = new ChromeTraceBuilder(options);
  }

  /** Consumes every record in the buffer now. */
  drain(): void {
    const fs = this.#fs;
    const returning = this.#returningFunctions();
    for (let ev = fs.buffer.consume(); ev !== undefined; ev = fs.buffer.consume()) {
      if (ev.lost > 0) this.#builder.lost(ev.cpu, ev.lost, ev.ts);
      const event = fs.kprobeEvents.eventById(ev.view.getUint16(ev.offset, true));
      if (event !== undefined) this.#builder.add(chromeTraceHit(fs, ev, event, returning));
    }
  }

  /** The document of everything drained so far. */
  document(): ChromeTraceDocument {
    return this.#builder.document();
  }

  /** {@link document} as one line of JSON (control characters escaped) and a newline. */
  text(): string {
    return jsonLine(this.document());
  }

  /** The functions the kretprobe events probe (by symbol, or the symbol at their address). */
  #returningFunctions(): Set<string> {
    const names = new Set<string>();
    for (const event of this.#fs.kprobeEvents.events) {
      for (const def of event.definitions) {
        if (def.kind !== 'r') continue;
        if (def.symbol !== undefined) names.add(def.symbol.slice(def.symbol.indexOf(':') + 1));
        else if (def.address !== undefined) names.add(locateAddress(this.#fs, def.address).name);
      }
    }
    return names;
  }
}
