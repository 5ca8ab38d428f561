import { describe, expect, it } from 'vitest';
import { Machine } from '../src/machine/machine.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';
import { stateHash } from '../src/session/state-hash.js';

const image = readSampleImage();

/** A machine that ran `spin` and then idled until `deadlineNs`; `tickByTick` forbids skipping idle time. */
function idleTo(quantum: number, deadlineNs: number, tickByTick: boolean) {
  const m = Machine.boot({ image, cpus: 2, quantum, programs: sampleProgram });
  let rounds = 0;
  // A hook with no idle predicate may have work every round: the loop then passes idle time tick by tick.
  if (tickByTick) m.kernel.onRoundBoundary(() => rounds++);
  else
    m.kernel.onRoundBoundary(
      () => rounds++,
      () => true,
    );
  const t = m.spawn(['spin', '2000']);
  m.run({ until: () => t.exited });
  const outcome = m.run({ deadlineNs });
  return {
    outcome,
    clocks: m.cpus.map((_, c) => m.clock(c)),
    hash: stateHash(m),
    rounds,
    loop: (m.snapshot().kernel.get('machine') as { loop: unknown }).loop,
  };
}

describe('Machine.run idle until a deadline', () => {
  for (const quantum of [10_000, 7, 300_000]) {
    it(`should reach the clocks, ticks and state hash of the tick-by-tick idle loop in one step (quantum ${quantum})`, () => {
      const slow = idleTo(quantum, 30_000_017, true);
      const fast = idleTo(quantum, 30_000_017, false);
      expect(fast.outcome).toEqual(slow.outcome);
      expect(fast.clocks).toEqual(slow.clocks);
      // The run loop's own state (round, ticks due): the same either way, and there to compare.
      expect(fast.loop).toBeDefined();
      expect(fast.loop).toEqual(slow.loop);
      expect(fast.hash).toBe(slow.hash);
      expect(fast.rounds).toBeLessThan(slow.rounds);
    });
  }

  it('should pass 1e15 ns of idle time in a few rounds', () => {
    const m = Machine.boot({ image, cpus: 2, programs: sampleProgram });
    let rounds = 0;
    m.kernel.onRoundBoundary(
      () => rounds++,
      () => true,
    );
    expect(m.run({ deadlineNs: 1e15 })).toEqual({ reason: 'time', at: m.clock(0) });
    expect(m.clock(0)).toBeGreaterThanOrEqual(1e15);
    expect(rounds).toBeLessThan(10);
  });
});
