import { describe, expect, it } from 'vitest';
import { Machine } from '../src/machine/machine.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';
import { NS_PER_INSTRUCTION, TICK_NS } from '../src/time/virtual-time.js';

const image = readSampleImage();

describe('Machine.onRoundBoundary', () => {
  it('should run the hook once per completed round, after every CPU ran its slice', () => {
    const m = Machine.boot({ image, cpus: 3, quantum: 500, programs: sampleProgram });
    const seen: number[][] = [];
    m.kernel.onRoundBoundary(() => seen.push(m.cpus.map((_, c) => m.clock(c))));
    const before = m.cpus.map((_, c) => m.clock(c));
    m.runRound();
    m.runRound();
    expect(seen).toHaveLength(2);
    for (let c = 0; c < 3; c++) {
      expect(seen[0][c]).toBeGreaterThan(before[c]);
      expect(seen[1][c]).toBeGreaterThan(seen[0][c]);
    }
  });

  it('should wait for a round a stop interrupted to be finished', () => {
    const m = Machine.boot({ image, cpus: 2, quantum: 500, programs: sampleProgram });
    let hooks = 0;
    m.kernel.onRoundBoundary(() => hooks++);
    const task = m.spawn(['spin', '300']);
    let calls = 0;
    expect(m.run({ stopAfter: () => ++calls === 1 })).toEqual({ reason: 'stopped' });
    expect(hooks).toBe(0);
    m.runRound();
    expect(hooks).toBe(1);
    m.run({ until: () => task.exited });
    expect(hooks).toBeGreaterThan(1);
  });

  it('should stop calling a hook once unregistered', () => {
    const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
    let hooks = 0;
    const off = m.kernel.onRoundBoundary(() => hooks++);
    m.runRound();
    off();
    m.runRound();
    expect(hooks).toBe(1);
  });

  it('should let time pass tick by tick on an idle machine run to a deadline, with a boundary per tick', () => {
    const quantum = 10_000;
    const m = Machine.boot({ image, cpus: 2, quantum, programs: sampleProgram });
    const at: number[] = [];
    m.kernel.onRoundBoundary(() => at.push(m.clock(0)));
    const start = m.clock(0);
    expect(m.run({}).reason).toBe('idle');
    expect(at).toEqual([]);
    const outcome = m.run({ deadlineNs: start + 5 * TICK_NS });
    expect(outcome).toEqual({ reason: 'time', at: m.clock(0) });
    expect(m.clock(0)).toBeGreaterThanOrEqual(start + 5 * TICK_NS);
    expect(at.length).toBeGreaterThanOrEqual(5);
    // A tick of idle time, then the idle round itself (one quantum).
    const step = TICK_NS + quantum * NS_PER_INSTRUCTION;
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeLessThanOrEqual(step);
  });
});
