import { describe, expect, it } from 'vitest';
import { listedProbes, run } from '../../test/support/tracefs-machine.js';
import { TracerUsageError } from '../plugins/tracer-usage-error.js';
import { ChromeTrace } from './chrome-trace.js';
import type { ChromeTraceDocument, ChromeTraceEvent } from './chrome-trace-event.js';
import { bootTracerHost, startCause } from './tracer-host.fixture.js';

function parse(text: string): ChromeTraceDocument {
  return JSON.parse(text) as ChromeTraceDocument;
}

describe(ChromeTrace, () => {
  it('should emit valid Chrome Trace JSON: B/E pairs per CPU and task for kretprobes, i events for kprobes', async () => {
    const { m, host } = await bootTracerHost();
    host.start('chrome-trace', ['vfs_read', 'p:do_sys_open']);
    run(m, ['cat', '/etc/motd']);
    host.stop('chrome-trace');
    const report = host.report('chrome-trace');
    expect(report.format).toBe('json');
    const doc = parse(report.text);
    expect(doc.displayTimeUnit).toBe('ns');
    expect(doc.traceEvents).toContainEqual({ name: 'process_name', ph: 'M', pid: 0, tid: 0, args: { name: 'CPU 0' } });
    const thread = doc.traceEvents.find((e) => e.name === 'thread_name' && String(e.args?.name).startsWith('cat-'));
    const tid = thread?.tid;
    expect(thread?.args?.name).toBe(`cat-${tid}`);
    const opens = doc.traceEvents.filter((e) => e.name === 'do_sys_open');
    expect(opens).toEqual([expect.objectContaining({ ph: 'i', s: 't', cat: 'kprobe', pid: 0, tid })]);
    const reads = doc.traceEvents.filter((e) => e.name === 'vfs_read');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.map((e) => e.ph)).toEqual(reads.flatMap((_e, i) => (i % 2 === 0 ? ['B'] : ['E'])));
    for (let i = 0; i < reads.length; i += 2) expect(reads[i + 1].ts ?? 0).toBeGreaterThan(reads[i].ts ?? 0);
    // cat opens the file before reading it.
    expect(opens[0].ts ?? 0).toBeLessThan(reads[0].ts ?? 0);
  });

  it.each(['sys_fork', 'vfs_read'])(
    'should time calls of %s exactly as funclatency does with --complete (X events)',
    async (f) => {
      const { m, host } = await bootTracerHost(2);
      host.start('chrome-trace', ['--complete', 'sys_fork', 'vfs_read']);
      host.start('funclatency', [f]);
      run(m, ['fork'], ['cat', '/etc/motd']);
      host.stop();
      const events = parse(host.report('chrome-trace').text).traceEvents;
      expect(events.some((e) => e.ph === 'B' || e.ph === 'E')).toBe(false);
      const lat = host.report('funclatency').text;
      const xs = events.filter((e: ChromeTraceEvent) => e.name === f && e.ph === 'X');
      expect(xs.length).toBeGreaterThan(0);
      const total = Number(new RegExp(`total: (\\d+) nsecs, count: ${xs.length}\\n$`).exec(lat)?.[1]);
      expect(xs.reduce((s, e) => s + (e.dur ?? 0) * 1000, 0)).toBeCloseTo(total, 3);
    },
  );

  it('should put forks on the forking task and name each task track after its comm', async () => {
    const { m, host } = await bootTracerHost(2);
    host.start('chrome-trace', ['--complete', 'sys_fork', 'p:sys_getpid']);
    run(m, ['fork']);
    const events = parse(host.report('chrome-trace').text).traceEvents;
    const names = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [e.tid, e.args?.name]));
    const forks = events.filter((e) => e.name === 'sys_fork');
    expect(forks).toHaveLength(3);
    expect(new Set(forks.map((e) => names.get(e.tid)))).toEqual(new Set([`fork-${forks[0].tid}`]));
    const getpids = events.filter((e) => e.name === 'sys_getpid');
    expect(getpids).toHaveLength(3);
    expect(new Set(getpids.map((e) => e.tid)).size).toBe(3);
    expect(getpids.every((e) => e.tid !== forks[0].tid)).toBe(true);
  });

  it('should refuse to start without a function, with a TracerUsageError saying how to call it', async () => {
    const { host } = await bootTracerHost();
    for (const args of [[], ['--complete']]) {
      const cause = startCause(host, 'chrome-trace', args);
      expect(cause).toBeInstanceOf(TracerUsageError);
      expect((cause as Error).message).toMatch(/^usage: chrome-trace \[--complete\] FUNCTION\|p:FUNCTION\.\.\./);
    }
  });

  it('should remove its probes on stop', async () => {
    const { fs, host } = await bootTracerHost();
    host.start('chrome-trace', ['sys_fork', 'p:do_sys_open']);
    expect(listedProbes(fs)).toHaveLength(2);
    host.stop('chrome-trace');
    expect(listedProbes(fs)).toEqual([]);
  });
});
