import { describe, expect, it } from 'vitest';
import { ChromeTraceBuilder, type ChromeTraceHit } from './chrome-trace-builder.js';
import type { ChromeTraceEvent } from './chrome-trace-event.js';

const hit = (kind: ChromeTraceHit['kind'], name: string, ts: number, tid = 7, cpu = 0): ChromeTraceHit => ({
  kind,
  name,
  cat: kind === 'return' ? 'kretprobe' : 'kprobe',
  ts,
  cpu,
  tid,
  comm: `t${tid}`,
  args: { at: ts },
});

function build(hits: ChromeTraceHit[], complete = false): ChromeTraceEvent[] {
  const b = new ChromeTraceBuilder({ complete });
  for (const h of hits) b.add(h);
  return b.document().traceEvents.filter((e) => e.ph !== 'M');
}

/** Checks B/E nest per track like a call stack; returns the completed [name, B ts, E ts] per track. */
function pairs(events: readonly ChromeTraceEvent[]): Map<string, [string, number, number][]> {
  const stacks = new Map<string, ChromeTraceEvent[]>();
  const done = new Map<string, [string, number, number][]>();
  for (const e of events) {
    const track = `${e.pid}/${e.tid}`;
    const stack = stacks.get(track) ?? [];
    stacks.set(track, stack);
    if (e.ph === 'B') stack.push(e);
    if (e.ph === 'E') {
      const b = stack.pop();
      expect(b?.name).toBe(e.name);
      done.set(track, [...(done.get(track) ?? []), [e.name, b?.ts ?? -1, e.ts ?? -1]]);
    }
  }
  for (const s of stacks.values()) expect(s).toEqual([]);
  return done;
}

describe(ChromeTraceBuilder, () => {
  it('should nest entry/return pairs per task even when tasks interleave', () => {
    const events = build([
      hit('entry', 'outer', 1000, 1),
      hit('entry', 'outer', 1500, 2),
      hit('entry', 'inner', 2000, 1),
      hit('return', 'outer', 2500, 2),
      hit('return', 'inner', 3000, 1),
      hit('return', 'outer', 4000, 1),
    ]);
    expect(events.map((e) => `${e.ph}:${e.name}:${e.tid}`)).toEqual([
      'B:outer:1',
      'B:outer:2',
      'B:inner:1',
      'E:outer:2',
      'E:inner:1',
      'E:outer:1',
    ]);
    expect(pairs(events)).toEqual(
      new Map([
        ['0/2', [['outer', 1.5, 2.5]]],
        [
          '0/1',
          [
            ['inner', 2, 3],
            ['outer', 1, 4],
          ],
        ],
      ]),
    );
  });

  it('should turn unmatched returns, lost entries and still-open entries into instants', () => {
    const events = build([
      hit('return', 'orphan', 500),
      hit('entry', 'f', 1000),
      hit('entry', 'lost', 1100), // its return never comes
      hit('return', 'f', 2000),
      hit('entry', 'open', 3000),
    ]);
    expect(events.map((e) => [e.ph, e.name, e.ts])).toEqual([
      ['i', 'orphan (return)', 0.5],
      ['B', 'f', 1],
      ['i', 'lost', 1.1],
      ['E', 'f', 2],
      ['i', 'open', 3],
    ]);
    expect(events.filter((e) => e.ph === 'i').every((e) => e.s === 't')).toBe(true);
    pairs(events);
  });

  it('should emit X events with the duration and both hits args when asked', () => {
    const events = build(
      [hit('entry', 'f', 1000), hit('entry', 'f', 1200), hit('return', 'f', 1700), hit('return', 'f', 3000)],
      true,
    );
    expect(events).toEqual([
      { name: 'f', cat: 'kprobe', ph: 'X', ts: 1, dur: 2, pid: 0, tid: 7, args: { at: 3000 } },
      { name: 'f', cat: 'kprobe', ph: 'X', ts: 1.2, dur: 0.5, pid: 0, tid: 7, args: { at: 1700 } },
    ]);
  });

  it('should end a pair on the entry CPU when the task migrated, noting the return CPU', () => {
    const events = build([hit('entry', 'f', 1000, 7, 0), hit('return', 'f', 2000, 7, 1)]);
    expect(events.map((e) => [e.ph, e.pid, e.args?.return_cpu])).toEqual([
      ['B', 0, undefined],
      ['E', 0, 1],
    ]);
  });

  it('should name CPU processes and task threads with metadata events', () => {
    const b = new ChromeTraceBuilder();
    b.add(hit('instant', 'x', 1, 7, 1));
    b.add(hit('instant', 'x', 2, 8, 0));
    const meta = b.document().traceEvents.filter((e) => e.ph === 'M');
    expect(meta.filter((e) => e.name === 'process_name').map((e) => [e.pid, e.args?.name])).toEqual([
      [0, 'CPU 0'],
      [1, 'CPU 1'],
    ]);
    expect(meta.filter((e) => e.name === 'thread_name').map((e) => [e.pid, e.tid, e.args?.name])).toEqual([
      [1, 7, 't7-7'],
      [0, 8, 't8-8'],
    ]);
  });

  it('should say what pid and tid mean, in the labels of each CPU process and in otherData', () => {
    const b = new ChromeTraceBuilder();
    b.add(hit('instant', 'x', 1, 7, 1));
    const doc = b.document();
    expect(doc.traceEvents).toContainEqual({
      name: 'process_labels',
      ph: 'M',
      pid: 1,
      tid: 0,
      args: { labels: 'pid = CPU number, tid = task pid' },
    });
    expect(doc.otherData).toMatchObject({ pid: 'CPU number', tid: 'task pid' });
  });

  it('should mark a gap of lost records as a process-scoped instant on its CPU, in time order', () => {
    const b = new ChromeTraceBuilder();
    b.add(hit('instant', 'x', 1000, 7, 0));
    b.lost(1, 42, 2000);
    b.add(hit('instant', 'y', 3000, 7, 0));
    const events = b.document().traceEvents;
    expect(events.filter((e) => e.ph !== 'M').map((e) => e.name)).toEqual(['x', 'lost 42 events', 'y']);
    expect(events.find((e) => e.cat === 'lost')).toEqual({
      name: 'lost 42 events',
      cat: 'lost',
      ph: 'i',
      s: 'p',
      ts: 2,
      pid: 1,
      tid: 0,
      args: { cpu: 1, count: 42 },
    });
    expect(events).toContainEqual(expect.objectContaining({ name: 'process_name', pid: 1 }));
  });
});
