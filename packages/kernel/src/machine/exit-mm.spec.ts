import { PageFlags, pageArenaUsage } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { readSampleImage, sampleProgram } from '../sample-image.js';
import { stateHash } from '../session/state-hash.js';
import { exitMm } from './exit-mm.js';
import { Machine } from './machine.js';

const image = readSampleImage();
const writable = (pages: Iterable<{ flags: number }>) => [...pages].filter((p) => p.flags & PageFlags.Writable).length;

describe(exitMm, () => {
  it('should leave an exited task only its shared read-only text, its relatives running on', () => {
    const m = Machine.boot({ image, cpus: 2, programs: sampleProgram });
    const first = m.spawn(['hello']);
    const forked = m.spawn(['fork', '3']);
    const mapped = first.mm.pageMap.size;
    expect(writable(first.mm.pageMap.values())).toBeGreaterThan(30);
    m.run({ until: () => first.exited });
    expect(writable(first.mm.pageMap.values())).toBe(0);
    expect(first.mm.pageMap.size).toBeGreaterThan(0);
    expect(first.mm.pageMap.size).toBeLessThan(mapped / 4);
    const second = m.spawn(['hello']);
    m.run({});
    expect([first, forked, second].map((t) => t.exitCode)).toEqual([0, 0, 0]);
    const hellos = m.console.filter((w) => w.pid === first.pid || w.pid === second.pid).map((w) => w.text);
    expect(hellos).toEqual([`Hello from int3, pid ${first.pid}!\n`, `Hello from int3, pid ${second.pid}!\n`]);
  });

  it('should hold no user memory of its own after any number of tasks ran one after the other', () => {
    const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
    const tasks = Array.from({ length: 40 }, () => {
      const t = m.spawn(['hello']);
      m.run({ until: () => t.exited });
      return t;
    });
    expect(tasks.reduce((n, t) => n + writable(t.mm.pageMap.values()), 0)).toBe(0);
  });

  it("should give an exited task's pages back to the page arena at once: forks run one after another in one synchronous job do not grow it", () => {
    const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
    const forks = () => {
      const t = m.spawn(['fork', '20']);
      m.run({ until: () => t.exited });
      expect(t.exitCode).toBe(0);
    };
    forks();
    const inUse = pageArenaUsage().pages;
    // 20 runs, each forking 20 children of some 30 writable pages: 12,000 pages copied and dropped.
    for (let k = 0; k < 20; k++) forks();
    expect(pageArenaUsage().pages).toBeLessThanOrEqual(inUse + 64);
  });

  it('should not stop a snapshot of the living task from bringing its memory back', () => {
    const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
    const t = m.spawn(['hello']);
    m.run({ deadlineNs: 5_000 });
    const alive = m.snapshot();
    const hash = stateHash(m);
    const pages = t.mm.pageMap.size;
    m.run({});
    expect(t.exited).toBe(true);
    m.restore(alive);
    expect(t.mm.pageMap.size).toBe(pages);
    expect(stateHash(m)).toBe(hash);
    m.run({});
    expect(t.exitCode).toBe(0);
  });
});
