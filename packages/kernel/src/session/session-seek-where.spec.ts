import { describe, expect, it } from 'vitest';
import { KernelError } from '../kernel-error.js';
import { readSampleImage, sampleProgram } from '../sample-image.js';
import { Session } from './session.js';
import { stateHash } from './state-hash.js';

const image = readSampleImage();
const base = { image, imageName: 'vmlinux', programs: sampleProgram };

/** A run long enough for periodic snapshots inside its `input:run`. */
function record(): Session {
  const s = Session.create({ ...base, cpus: 2, snapshotEveryNs: 20_000 });
  s.runWorkloads([
    ['cat', '/etc/motd'],
    ['spin', '30000'],
  ]);
  return s;
}

const lastCheckpointHash = (s: Session) => s.log().findLast((e) => e.type === 'checkpoint')?.hash;

/** Holds CPU `cpu` once, right before it retires its instruction number `n`; `held` tells when it did. */
function holdBefore(s: Session, cpu: number, n: number) {
  const state = { armed: true, held: false, rip: 0n };
  s.machine.kernel.stepHook = (c, rip) => {
    if (!state.armed || c !== cpu || s.machine.cpus[cpu].retired !== n) return false;
    state.armed = false;
    state.held = true;
    state.rip = rip;
    return true;
  };
  const stop = () => {
    const h = state.held;
    state.held = false;
    return h;
  };
  return { state, stop };
}

describe('Session.seekWhere', () => {
  it('should stop right before the instruction a step hook holds, and go on from there as if it never stopped', () => {
    const s = record();
    const end = lastCheckpointHash(s);
    const snaps = s.snapshotList();
    expect(snaps.length).toBeGreaterThan(4);
    // Deep in the run, after the third snapshot, on the CPU that runs spin.
    const target = snaps[3].machine.cpus[1].context.retired + 1234;
    const { state, stop } = holdBefore(s, 1, target);
    const from = snaps.findLast((x) => x.machine.cpus[1].context.retired < target)!;
    expect(from).toBe(snaps[3]);
    expect(s.seekWhere(from, stop)).toBe(true);
    expect(s.machine.cpus[1].retired).toBe(target);
    expect(s.machine.cpus[1].rip).toBe(state.rip);
    const there = stateHash(s.machine);
    // Going on from here reaches the recorded end; seeking there again reaches the same state.
    expect(s.seekWhere('here', () => false)).toBe(false);
    s.machine.kernel.stepHook = undefined;
    expect(s.hash()).toBe(end);
    const again = holdBefore(s, 1, target);
    expect(s.seekWhere(s.snapshotList()[0], again.stop)).toBe(true);
    expect(stateHash(s.machine)).toBe(there);
    s.machine.kernel.stepHook = undefined;
  });

  it('should run to the end of the log when the stop never holds', () => {
    const s = record();
    expect(s.seekWhere(s.snapshotList()[1], () => false)).toBe(false);
    expect(s.position).toBe(s.log().length);
    expect(s.hash()).toBe(lastCheckpointHash(s));
  });

  it('should pin a snapshot right before an instruction a step hook held, and start a seek there', () => {
    const s = Session.create({ ...base, cpus: 2, snapshotEveryNs: 20_000 });
    s.apply({ type: 'input:spawn', argv: ['cat', '/etc/motd'] });
    // The first instruction of the run: held, then pinned (the origin's bucket already has one).
    let first: bigint | undefined;
    s.machine.kernel.stepHook = (_cpu, rip) => {
      if (first !== undefined) return false;
      first = rip;
      return true;
    };
    let held = false;
    expect(s.applyPausable({ type: 'input:run', pids: [1] }, () => (held = first !== undefined && !held))).toBe(false);
    s.machine.kernel.stepHook = undefined;
    const pinned = s.snapshotHere();
    expect(pinned.pinned).toBe(true);
    expect(pinned.resume).toBeDefined();
    while (!s.resume(() => false));
    const end = s.hash();
    // From the pinned snapshot (inside input:run) the log re-runs to the same end.
    expect(s.seekWhere(pinned, () => false)).toBe(false);
    expect(s.hash()).toBe(end);
    expect(s.snapshotList()).toContain(pinned);
    s.seek(1);
    expect(() => s.snapshotHere()).toThrow(/end of the log/);
  });

  it("should refuse a snapshot that is not the session's", () => {
    const a = record();
    const b = record();
    expect(() => a.seekWhere(b.snapshotList()[0], () => true)).toThrow(KernelError);
  });
});

describe('an input handler that returns stopped', () => {
  it("should leave the session inside its input, and go on with it when asked, as input:run's stops do", () => {
    const s = Session.create({ ...base, cpus: 1 });
    s.runWorkloads([['spin', '2000']]);
    let calls = 0;
    let interruptAt: number | undefined;
    // Runs rounds up to a virtual time; a stop asked for at a time interrupts it there.
    s.handle('input:until', (input) => {
      calls++;
      while (s.machine.clock(0) < (input.untilNs as number)) {
        s.machine.runRound();
        if (interruptAt !== undefined && s.machine.clock(0) >= interruptAt) {
          interruptAt = undefined;
          return 'stopped';
        }
      }
      return undefined;
    });
    const from = s.machine.clock(0);
    s.apply({ type: 'input:until', untilNs: from + 100_000 });
    const end = s.hash();
    const entries = s.log().length;
    expect(calls).toBe(1);
    interruptAt = from + 50_000;
    expect(s.seekWhere(s.snapshotList()[0], () => false)).toBe(true);
    // Inside the input (its checkpoint not produced again yet), where the handler stopped.
    expect(s.position).toBe(entries - 1);
    expect(s.machine.clock(0)).toBeGreaterThanOrEqual(from + 50_000);
    expect(s.machine.clock(0)).toBeLessThan(from + 100_000);
    expect(s.seekWhere('here', () => false)).toBe(false);
    expect(s.position).toBe(entries);
    expect(s.hash()).toBe(end);
    expect(calls).toBe(3);
  });
});
