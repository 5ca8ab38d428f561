import { ChromeTraceStream, TraceJsonLines } from '@int3/tracer-plugins';
import type { Terminal } from '../runtime/terminal.js';
import { colorizeTrace } from './colorize-trace.js';
import type { TraceFormat } from './trace-plan.js';
import type { TraceSink } from './trace-sink.js';
import type { TracedSession } from './traced-session.js';
import { bufferSizeKb, ringCpus, ringStats } from './tracefs-files.js';

/** A trace written while the run goes: {@link drain} after each slice, {@link finish} at the end. */
export interface TraceOutput {
  /** Writes the records the buffer holds now (consuming them, as `trace_pipe` does). */
  drain(): void;
  /** Drains the rest and writes what ends the output (the JSON `end` line, the Chrome document). */
  finish(): void;
}

/**
 * The trace in one of the tracing commands' formats, streamed to `sink`: `text` is `trace_pipe` read
 * after each slice (painted when `paint` is a colour terminal); `json` the typed JSON Lines of
 * {@link TraceJsonLines} (its header at once); `chrome` one Trace Event document with complete (`X`)
 * events, written at the end (a document cannot be cut into lines), its records drained as the run
 * goes so the buffer never fills between slices. The same run gives the same bytes in every format
 * whatever the slicing, since records leave the buffer in timestamp order.
 *
 * @see kernel/trace/trace.c tracing_read_pipe()
 * @example
 * const out = createTraceOutput(t, 'json', stdoutSink((s) => process.stdout.write(s)));
 * // after each slice: out.drain(); at the end:
 * out.finish();
 */
export function createTraceOutput(
  t: TracedSession,
  format: TraceFormat,
  sink: TraceSink,
  paint?: Terminal,
): TraceOutput {
  if (format === 'json') {
    const json = new TraceJsonLines(t.fs);
    sink.write(json.header());
    const drain = () => {
      const text = json.drain();
      if (text !== '') sink.write(text);
    };
    return {
      drain,
      finish: () => {
        drain();
        sink.write(json.end());
      },
    };
  }
  if (format === 'chrome') {
    const chrome = new ChromeTraceStream(t.fs, { complete: true });
    return {
      drain: () => chrome.drain(),
      finish: () => {
        chrome.drain();
        sink.write(chrome.text());
      },
    };
  }
  const drain = () => {
    for (const chunk of t.fs.readChunks('trace_pipe')) sink.write(paint ? colorizeTrace(chunk, paint) : chunk);
  };
  return { drain, finish: drain };
}

/**
 * The stderr line for records lost to a full ring buffer, or undefined when none was:
 * `lost 8523 events on CPU 0, 12 on CPU 1; raise --buffer-size (now 1408 KiB per CPU)`. It counts the
 * records overwritten before they were read (the trace's `LOST` notices) and those dropped for being
 * larger than the whole buffer (which, as in the kernel, only `per_cpu/cpuN/stats` shows).
 */
export function lostEventsSummary(t: TracedSession, advice: string): string | undefined {
  const parts: string[] = [];
  for (const cpu of ringCpus(t.fs)) {
    const stats = ringStats(t.fs, cpu);
    const n = stats.overrun + stats.droppedEvents;
    if (n > 0) parts.push(parts.length === 0 ? `${n} events on CPU ${cpu}` : `${n} on CPU ${cpu}`);
  }
  if (parts.length === 0) return undefined;
  return `lost ${parts.join(', ')}; ${advice} (now ${bufferSizeKb(t.fs)} KiB per CPU)`;
}
