import { describe, expect, it } from 'vitest';
import { defineEvents } from './run-trace.js';
import { createTracedSession, readKernelImage } from './traced-session.js';
import { bufferSizeKb, definedEvents, probeHits, ringCpus, ringStats } from './tracefs-files.js';

const image = readKernelImage(undefined, 'test');

function traced(filters: { event: string; expr: string }[] = []) {
  const t = createTracedSession(image, 2);
  defineEvents(
    t,
    { definitions: ['p:open do_sys_open dfd=%di', 'p:grp2/rd vfs_read'], filters, bufferSizeKb: 4 },
    'test',
  );
  t.session.runWorkloads([['cat', '/etc/motd']]);
  return t;
}

describe('the tracefs files the CLI reads', () => {
  it('should list the defined events from available_events, in their order', () => {
    expect(definedEvents(traced().fs)).toEqual([
      { group: 'kprobes', name: 'open' },
      { group: 'grp2', name: 'rd' },
    ]);
  });

  it("should read each CPU's ring counters as per_cpu/cpuN/stats prints them", () => {
    const t = traced();
    expect(ringCpus(t.fs)).toEqual([0, 1]);
    const held = ringCpus(t.fs).reduce((n, cpu) => n + ringStats(t.fs, cpu).entries, 0);
    expect(held).toBe(
      t.fs
        .read('trace')
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('#')).length,
    );
    expect(ringStats(t.fs, 0)).toMatchObject({ overrun: 0, droppedEvents: 0 });
    expect(bufferSizeKb(t.fs)).toBe(4);
  });

  it('should count the hits kprobe_profile counts, those a filter dropped included', () => {
    const all = traced();
    const hits = probeHits(all.fs);
    expect(hits).toBeGreaterThan(0);
    const filtered = traced([
      { event: 'open', expr: 'dfd == 12345' },
      { event: 'rd', expr: 'common_pid == 0' },
    ]);
    expect(
      filtered.fs
        .read('trace')
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('#')),
    ).toEqual([]);
    expect(probeHits(filtered.fs)).toBe(hits);
  });
});
