import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeLogLine, type LogEntry } from '../src/log/log-codec.js';
import { Machine } from '../src/machine/machine.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';
import { stateHash } from '../src/session/state-hash.js';

/**
 * Restore + rerun reproduces the future: snapshot at T, run to T2, restore, run to T2 again — the
 * same state hash and the same events. `INT3_SNAPSHOT_RUNS=<n>` runs more cases (default 3 per CPU count).
 */
const RUNS = Number(process.env.INT3_SNAPSHOT_RUNS ?? 3);
const image = readSampleImage();
const MIX = [['fork', '3'], ['net', '2'], ['dd', '2'], ['cat', '/etc/motd'], ['fault']];

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

describe('Machine.restore', () => {
  for (const cpus of [1, 4]) {
    it(`should rerun to identical state hashes and events after a restore on ${cpus} CPU(s)`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 140_000 }), fc.integer({ min: 1, max: 60_000 }), (t, dt) => {
          const m = Machine.boot({ image, cpus, programs: sampleProgram });
          for (const argv of MIX) m.spawn(argv);
          m.run({ deadlineNs: t });
          const atT = stateHash(m);
          const s = m.snapshot();
          const first = recording(m, () => m.run({ deadlineNs: t + dt }));
          const atT2 = stateHash(m);
          m.run({});
          m.restore(s);
          expect(stateHash(m)).toBe(atT);
          const again = recording(m, () => m.run({ deadlineNs: t + dt }));
          expect(stateHash(m)).toBe(atT2);
          expect(again).toEqual(first);
        }),
        { numRuns: RUNS, seed: 3 + cpus },
      );
    });
  }
});
