import { describe, expect, it } from 'vitest';
import { createTracedSession, readKernelImage, replayTracedSession } from '../../tracing/traced-session.js';
import { GDB_RUN_INSTRUCTIONS } from '../live/gdb-inputs.js';
import { handleGdbInputs } from '../live/trace-gdb.js';
import { amd64RegisterNumber } from '../protocol/amd64-registers.js';
import { BreakpointType, TargetRefusal } from '../protocol/gdb-target.js';
import { MachineTarget } from './machine-target.js';

const image = readKernelImage(undefined, 'replay');
const RIP = amd64RegisterNumber('rip');

/** A recorded run of `argvs`, replayed whole with snapshots every `everyNs`, under a MachineTarget. */
function target(argvs: string[][], everyNs: number): MachineTarget {
  const rec = createTracedSession(image, 2, { recordEvents: true });
  rec.session.runWorkloads(argvs);
  rec.session.end();
  const log = new TextEncoder().encode(rec.session.text());
  const traced = replayTracedSession(log, 'run.int3log', image, -1, { snapshotEveryNs: everyNs });
  const entries = rec.session.log();
  for (const e of entries) if (e.type.startsWith('input:')) traced.session.apply(e);
  return new MachineTarget(traced, entries);
}

const step = (t: MachineTarget, thread: number, direction: 'forward' | 'reverse') =>
  t.resume({ action: 'step', direction, thread });

describe(MachineTarget, () => {
  it('should start before the first instruction of the workload, with no history before it', async () => {
    const t = target([['cat', '/etc/motd']], 100_000);
    const start = t.stopEvent();
    expect(start).toEqual({ kind: 'stopped', thread: 1 });
    expect(t.readRegisters(1)[RIP]).toBe(0x4010acn);
    expect(await step(t, 1, 'reverse')).toEqual({
      kind: 'stopped',
      thread: 1,
      reason: { type: 'replaylog', which: 'begin' },
    });
    expect(t.readRegisters(1)[RIP]).toBe(0x4010acn);
  });

  it('should step back to every register of every instruction it stepped over, across snapshots', async () => {
    // Snapshots every 2 µs: 300 steps of spin cross many of them.
    const t = target([['spin', '2000']], 2_000);
    const thread = (t.stopEvent() as { thread: number }).thread;
    const seen: (readonly bigint[])[] = [t.readRegisters(thread)];
    for (let i = 0; i < 300; i++) {
      await step(t, thread, 'forward');
      seen.push(t.readRegisters(thread));
    }
    expect(new Set(seen.map((r) => r[RIP])).size).toBeGreaterThan(3);
    for (let i = 299; i >= 0; i--) {
      expect(await step(t, thread, 'reverse')).toEqual({ kind: 'stopped', thread });
      expect(t.readRegisters(thread)).toEqual(seen[i]);
    }
  });

  it('should continue to a breakpoint and back to the hit before, never writing guest memory', async () => {
    const t = target([['cat', '/etc/motd']], 100_000);
    const vfsRead = 0xffffffff81002320n;
    const before = t.readMemory(1, vfsRead, 16);
    expect(t.insertBreakpoint(BreakpointType.Software, vfsRead, 1)).toBe(true);
    expect(t.readMemory(1, vfsRead, 16)).toEqual(before);
    const hits: string[] = [];
    for (let i = 0; i < 2; i++) {
      const stop = await t.resume({ action: 'continue', direction: 'forward', thread: 1 });
      expect(stop).toEqual({ kind: 'stopped', thread: 1, reason: { type: 'swbreak' } });
      expect(t.readRegisters(1)[RIP]).toBe(vfsRead);
      hits.push(t.monitor('info'));
    }
    expect(hits[1]).not.toBe(hits[0]);
    expect(await t.resume({ action: 'continue', direction: 'reverse', thread: 1 })).toEqual({
      kind: 'stopped',
      thread: 1,
      reason: { type: 'swbreak' },
    });
    expect(t.monitor('info')).toBe(hits[0]);
    expect(await t.resume({ action: 'continue', direction: 'reverse', thread: 1 })).toMatchObject({
      reason: { type: 'replaylog', which: 'begin' },
    });
    t.removeBreakpoint(BreakpointType.Software, vfsRead, 1);
    expect(await t.resume({ action: 'continue', direction: 'forward', thread: 1 })).toMatchObject({
      reason: { type: 'replaylog', which: 'end' },
    });
    expect(t.takeOutput()).toMatch(/^int3: the recorded run ends here/);
  });

  it('should stop a long continue at the next instruction when interrupted (Ctrl-C)', async () => {
    // Long enough (3.6·10⁸ instructions) that a continue at full speed does not reach its end before
    // its first look for Ctrl-C.
    const t = target([['spin', '30000000']], 1_000_000);
    const stop = t.resume({ action: 'continue', direction: 'forward', thread: 1 });
    t.interrupt();
    const s = await stop;
    expect(s).toMatchObject({ kind: 'stopped', signal: 2 });
    // Stopped inside the run, not at its end: the history goes on from here.
    expect(t.monitor('info')).not.toContain('the end of the run');
    expect(await t.resume({ action: 'step', direction: 'reverse', thread: (s as { thread: number }).thread })).toEqual({
      kind: 'stopped',
      thread: (s as { thread: number }).thread,
    });
  });

  it('should refuse writes, and unknown monitor commands', () => {
    const t = target([['cat', '/etc/motd']], 100_000);
    expect(() => t.writeRegister(1, 0, 1n)).toThrow(/a replay cannot be changed/);
    expect(() => t.writeMemory(1, 0x1000n, new Uint8Array(1))).toThrow(TargetRefusal);
    expect(() => t.monitor('frobnicate')).toThrow(/unknown monitor command 'frobnicate'/);
    expect(() => t.monitor('event 999')).toThrow(/N from 0 to/);
    expect(t.insertBreakpoint(BreakpointType.ReadWatch, 0x1000n, 8)).toBe(true);
    expect(t.insertBreakpoint(BreakpointType.AccessWatch, 0x1000n, 9)).toBe(false);
  });

  it('should continue a live run at full speed, a slice of virtual time at a time, and stop there on Ctrl-C', async () => {
    const t = createTracedSession(image, 2, { recordEvents: true, snapshotEveryNs: 100_000 });
    handleGdbInputs(t);
    t.session.apply({ type: 'input:spawn', argv: ['spin', '30000000'] });
    const live = new MachineTarget(t, t.session.log(), { pids: t.session.spawned.map((task) => task.pid) });
    const stopped = live.resume({ action: 'continue', direction: 'forward', thread: 1 });
    live.interrupt();
    const s = (await stopped) as { kind: string; thread: number; signal?: number };
    expect(s).toMatchObject({ kind: 'stopped', signal: 2 });
    // One slice (5 ms of virtual time), far past the 10^5 instructions of a stepped resume.
    const runs = t.session.log().filter((e) => e.type === 'input:gdb-run');
    expect(runs.at(-1)).toMatchObject({ untilNs: expect.any(Number) });
    let retired = 0;
    for (const c of t.session.machine.cpus) retired += c.retired;
    expect(retired).toBeGreaterThan(10 * GDB_RUN_INSTRUCTIONS);
    // Where it stopped is a position of the history: a step back and forth comes back to it.
    const at = live.readRegisters(s.thread);
    await step(live, s.thread, 'reverse');
    await step(live, s.thread, 'forward');
    expect(live.readRegisters(s.thread)).toEqual(at);
  });
});
