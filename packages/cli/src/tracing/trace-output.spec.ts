import { describe, expect, it } from 'vitest';
import { defineEvents } from './run-trace.js';
import { createTraceOutput, lostEventsSummary } from './trace-output.js';
import type { TraceFormat } from './trace-plan.js';
import { stdoutSink } from './trace-sink.js';
import { createTracedSession, readKernelImage } from './traced-session.js';

const image = readKernelImage(undefined, 'trace');
const DEFS = ['p:in vfs_read', 'r:out vfs_read $retval', 'p:open do_sys_open filename=+0(%si):string'];

/** Runs `argv` with DEFS, draining every `every` ns of virtual time (Infinity: once, at the end). */
function traced(
  format: TraceFormat,
  every: number,
  bufferSizeKb?: number,
  argv = ['cat', '/etc/motd'],
): { text: string; lost?: string | undefined } {
  const t = createTracedSession(image, 2);
  defineEvents(t, { definitions: DEFS, filters: [], ...(bufferSizeKb === undefined ? {} : { bufferSizeKb }) }, 'trace');
  let text = '';
  const out = createTraceOutput(
    t,
    format,
    stdoutSink((s) => (text += s)),
  );
  const s = t.session;
  s.apply({ type: 'input:spawn', argv });
  const pids = s.spawned.map((task) => task.pid);
  for (;;) {
    s.apply({ type: 'input:run', pids, ...(every === Infinity ? {} : { deadlineNs: s.machine.clock(0) + every }) });
    out.drain();
    if (s.lastRun?.reason !== 'time') break;
  }
  out.finish();
  return { text, lost: lostEventsSummary(t, 'raise --buffer-size') };
}

describe(createTraceOutput, () => {
  it.each<TraceFormat>(['text', 'json', 'chrome'])(
    'should write the same %s whether drained per slice or once',
    (format) => {
      const once = traced(format, Infinity);
      expect(once.text.length).toBeGreaterThan(100);
      expect(traced(format, 20_000).text).toBe(once.text);
    },
  );
});

describe(lostEventsSummary, () => {
  it('should count a record larger than the whole buffer, which no LOST notice shows', () => {
    const t = createTracedSession(image, 1);
    defineEvents(t, { definitions: ['p:open do_sys_open s=+0(%si):string'], filters: [], bufferSizeKb: 1 }, 'trace');
    t.fs.buffer.write(0, 1, new Uint8Array(2048));
    expect(lostEventsSummary(t, 'raise --buffer-size')).toBe(
      'lost 1 events on CPU 0; raise --buffer-size (now 1 KiB per CPU)',
    );
  });

  it('should say nothing when nothing was lost, and one line per run when records were', () => {
    expect(traced('text', Infinity).lost).toBeUndefined();
    expect(traced('text', Infinity, 1, ['dd', '20']).lost).toMatch(
      /^lost \d+ events on CPU 0; raise --buffer-size \(now 1 KiB per CPU\)$/,
    );
  });
});
