import { describe, expect, it } from 'vitest';
import type { KernelError } from '../kernel-error.js';
import type { LogEntry } from '../log/log-codec.js';
import { readSampleImage, sampleProgram } from '../sample-image.js';
import { NS_PER_INSTRUCTION } from '../time/virtual-time.js';
import { Session } from './session.js';
import { stateHash } from './state-hash.js';

const image = readSampleImage();
const base = { image, imageName: 'vmlinux', programs: sampleProgram };
const enc = (s: string) => new TextEncoder().encode(s);
const retired = (s: Session) => s.machine.cpus.reduce((sum, c) => sum + c.retired, 0);

/** A run with a long first `input:run` (periodic snapshots inside it) and a second, shorter one. */
function record(cpus: number, maxSnapshots?: number): Session {
  const s = Session.create({
    ...base,
    cpus,
    snapshotEveryNs: 20_000,
    ...(maxSnapshots === undefined ? {} : { maxSnapshots }),
  });
  s.runWorkloads([['fork', '3'], ['net', '2'], ['dd', '2'], ['cat', '/etc/motd'], ['fault'], ['spin', '3000']]);
  s.runWorkloads([['hello'], ['mkdir', '/tmp/x']]);
  return s;
}

/** The state a fresh replay from boot reaches when it stops right after entry `n`. */
function freshAt(rec: Session, n: number): { hash: string; position: number; retired: number } {
  // The session recording is still live: its log has no end record yet.
  const r = Session.replay(enc(rec.text()), 'run.int3log', {
    ...base,
    stopAfterEntry: n,
    snapshotEveryNs: Infinity,
    allowIncomplete: true,
  });
  return { hash: stateHash(r.machine), position: r.position, retired: retired(r) };
}

/** Entries of the first `input:run` that come after its second snapshot: deep inside the long run. */
function insideLongRun(s: Session): number[] {
  const periodic = s.snapshotList().filter((x) => x.resume !== undefined);
  const firstRun = s.log().findIndex((e) => e.type === 'input:run');
  const checkpoint = s.log().findIndex((e, i) => i > firstRun && e.type === 'checkpoint');
  const from = periodic[1].entries;
  return [from, from + 1, Math.floor((from + checkpoint) / 2), checkpoint - 1].filter((n) => n < checkpoint);
}

describe(Session.prototype.seek, () => {
  for (const cpus of [1, 4]) {
    it(`should reach the state hash a fresh replay reaches at entry n, on ${cpus} CPU(s)`, () => {
      const s = record(cpus);
      const periodic = s.snapshotList().filter((x) => x.resume !== undefined);
      expect(periodic.length).toBeGreaterThanOrEqual(3);
      const last = s.log().length - 1;
      for (const n of [last - 3, ...insideLongRun(s), 0, 5, last]) {
        s.seek(n);
        const fresh = freshAt(s, n);
        expect({ n, hash: stateHash(s.machine), position: s.position }).toEqual({
          n,
          hash: fresh.hash,
          position: fresh.position,
        });
        expect(s.position).toBeGreaterThan(n);
      }
    });
  }

  it('should reach the same states from a timeline thinned to 4 snapshots', () => {
    const s = record(2, 4);
    const kept = s.snapshotList();
    expect(kept.length).toBeLessThanOrEqual(4);
    expect(kept.filter((x) => x.resume !== undefined).length).toBeGreaterThanOrEqual(1);
    const last = s.log().length - 1;
    for (const n of [...kept.map((x) => x.entries), ...insideLongRun(record(2)), 5, last - 1, last]) {
      s.seek(n);
      const fresh = freshAt(s, n);
      expect({ n, hash: stateHash(s.machine), position: s.position }).toEqual({
        n,
        hash: fresh.hash,
        position: fresh.position,
      });
    }
  });

  it('should keep at most maxSnapshots over a long run, spread over all of it', () => {
    const s = Session.create({ ...base, cpus: 2, maxSnapshots: 8 });
    s.apply({ type: 'input:spawn', argv: ['spin', '1000000000'] });
    for (let slice = 1; slice <= 20; slice++) s.apply({ type: 'input:run', deadlineNs: slice * 1_000_000 });
    const clocks = s.snapshotList().map((x) => x.clockNs);
    expect(clocks.length).toBeLessThanOrEqual(8);
    expect(clocks.length).toBeGreaterThanOrEqual(4);
    expect(clocks[clocks.length - 1]).toBeGreaterThan(10_000_000);
    // A seek re-executes at most the widest gap between snapshots (plus the slice it stops in).
    const gaps = [...clocks.slice(1), s.machine.clock(0)].map((c, i) => c - clocks[i]);
    const most = (2 * (Math.max(...gaps) + 1_000_000)) / NS_PER_INSTRUCTION;
    const checkpoints = s.log().flatMap((e, i) => (e.type === 'checkpoint' ? [i] : []));
    for (const n of checkpoints.filter((_, i) => i % 4 === 1)) {
      s.seek(n);
      expect(s.lastSeek!.instructions).toBeLessThanOrEqual(most);
    }
  });

  it('should re-execute from a snapshot, fewer instructions than a replay from boot', () => {
    const s = record(2);
    const boot = s.snapshotList()[0].machine.cpus.reduce((sum, c) => sum + c.context.retired, 0);
    for (const n of insideLongRun(s)) {
      s.seek(n);
      const fresh = freshAt(s, n);
      expect(s.lastSeek!.fromEntries).toBeGreaterThan(s.log().findIndex((e) => e.type === 'input:run'));
      expect(s.lastSeek!.instructions).toBeLessThan((fresh.retired - boot) / 2);
      expect(retired(s)).toBe(fresh.retired);
    }
  });

  it('should come back to the end and go on exactly as a session that never seeked', () => {
    const s = record(4);
    const straight = record(4);
    const end = stateHash(s.machine);
    s.seek(insideLongRun(s)[1]);
    expect(stateHash(s.machine)).not.toBe(end);
    s.seek(s.log().length - 1);
    expect(stateHash(s.machine)).toBe(end);
    s.runWorkloads([['cat', '/etc/hostname']]);
    straight.runWorkloads([['cat', '/etc/hostname']]);
    expect(s.text()).toBe(straight.text());
  });

  it('should refuse new inputs while the machine is in the past', () => {
    const s = record(1);
    s.seek(3);
    expect(() => s.apply({ type: 'input:spawn', argv: ['hello'] })).toThrow(/after seek\(\): seek\(\d+\) before/);
    expect(() => s.seek(s.log().length)).toThrow(/seek\(\d+\): the log has entries 0\.\.\d+/);
  });

  it('should report a re-run that does not produce the entries of the log', () => {
    const s = record(1);
    const [n] = insideLongRun(s);
    const log = s.log() as LogEntry[];
    log[n] = { ...log[n], at: -1 };
    let error: KernelError | undefined;
    try {
      s.seek(n);
    } catch (e) {
      error = e as KernelError;
    }
    expect(error?.message).toBe(`seek(${n}): the re-run diverged from the log at entry ${n}`);
  });
});
