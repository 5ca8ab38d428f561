import { describe, expect, it } from 'vitest';
import { encodeLogLine, type LogEntry } from '../log/log-codec.js';
import { Machine } from '../machine/machine.js';
import { readSampleImage, sampleProgram } from '../sample-image.js';
import { stateHash } from '../session/state-hash.js';
import { MachineSnapshotter } from './machine-snapshotter.js';

const image = readSampleImage();
const MIX = [['fork', '3'], ['net', '2'], ['dd', '2'], ['fault']];

function boot(cpus = 2): Machine {
  const m = Machine.boot({ image, cpus, programs: sampleProgram });
  for (const argv of MIX) m.spawn(argv);
  return m;
}

/** Every event and console write, as log lines, while `fn` runs. */
function recording(m: Machine, fn: () => void): string[] {
  const out: string[] = [];
  const subs = [
    m.events$.subscribe((e) => out.push(encodeLogLine({ ...e } as LogEntry))),
    m.streams.console$.subscribe((w) => out.push(encodeLogLine({ type: 'console', ...w }))),
  ];
  try {
    fn();
  } finally {
    for (const s of subs) s.unsubscribe();
  }
  return out;
}

describe(MachineSnapshotter, () => {
  it('should restore the same machine, with tasks that exited since alive again', () => {
    const m = boot();
    m.run({ deadlineNs: 20_000 });
    const s = m.snapshot();
    const pids = [...m.sched.tasks.keys()];
    const tasks = [...m.sched.tasks.values()];
    const hash = stateHash(m);
    m.run({});
    expect(m.sched.tasks.size).toBe(0);
    m.restore(s);
    expect([...m.sched.tasks.keys()]).toEqual(pids);
    expect([...m.sched.tasks.values()].every((t, i) => t === tasks[i])).toBe(true);
    expect(tasks.every((t) => !t.exited)).toBe(true);
    expect(stateHash(m)).toBe(hash);
    m.restore(s);
    expect(stateHash(m)).toBe(hash);
  });

  it('should share the contents of unchanged pages between snapshots', () => {
    const m = boot();
    const a = m.snapshot();
    m.run({ deadlineNs: 30_000 });
    const b = m.snapshot();
    const [ka, kb] = [a.spaces.get(m.space)!, b.spaces.get(m.space)!];
    let shared = 0;
    for (const [key, page] of kb.pages) if (ka.pages.get(key)?.data === page.data) shared++;
    expect(shared).toBeGreaterThan(kb.pages.size / 2);
    expect(shared).toBeLessThan(kb.pages.size);
  });

  it('should save and restore what providers hold, with undefined for a snapshot older than them', () => {
    const m = boot();
    let counter = 1;
    const early = m.snapshot();
    const off = m.kernel.registerSnapshotProvider('counter', {
      save: () => counter,
      restore: (s) => (counter = (s as number | undefined) ?? 0),
    });
    const s = m.snapshot();
    counter = 5;
    m.restore(s);
    expect(counter).toBe(1);
    m.restore(early);
    expect(counter).toBe(0);
    expect(() => m.kernel.registerSnapshotProvider('counter', { save: () => 0, restore: () => {} })).toThrow(
      "a snapshot provider named 'counter' is already registered",
    );
    off();
    counter = 7;
    m.restore(s);
    expect(counter).toBe(7);
  });

  it('should refuse a snapshot of another machine, and snapshots while a round runs', () => {
    const m = boot();
    const other = Machine.boot({ image, cpus: 2, programs: sampleProgram });
    expect(() => m.restore(other.snapshot())).toThrow('a snapshot can only be restored into the machine that took it');
    expect(() => m.run({ stopAfter: () => m.snapshot() !== undefined })).toThrow(
      'snapshot() works between rounds, not while the machine runs',
    );
  });

  it('should go on after a mid-round stop exactly as if it had not stopped, and restore a snapshot taken there', () => {
    const straight = boot(4);
    const expected = recording(straight, () => straight.run({}));
    const m = boot(4);
    let runs = 0;
    const head = recording(m, () => expect(m.run({ stopAfter: () => ++runs === 40 })).toEqual({ reason: 'stopped' }));
    const at = m.snapshot();
    const hash = stateHash(m);
    const tail = recording(m, () => m.run({}));
    expect([...head, ...tail]).toEqual(expected);
    expect(stateHash(m)).toBe(stateHash(straight));
    m.restore(at);
    expect(stateHash(m)).toBe(hash);
    expect(recording(m, () => m.run({}))).toEqual(tail);
  });
});
