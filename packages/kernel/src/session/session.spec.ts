import { describe, expect, it, vi } from 'vitest';
import { decodeLog, encodeLogLine, logHeaderLine } from '../log/log-codec.js';
import { readSampleImage, sampleProgram } from '../sample-image.js';
import { Session } from './session.js';

const image = readSampleImage();
const base = { image, imageName: 'vmlinux', programs: sampleProgram };
const enc = (s: string) => new TextEncoder().encode(s);

function record(cpus = 2): Session {
  const s = Session.create({ ...base, cpus });
  s.runWorkloads([
    ['fork', '3'],
    ['net', '2'],
    ['cat', '/etc/motd'],
  ]);
  s.runWorkloads([['fault'], ['dd', '2']]);
  s.close();
  s.end();
  return s;
}

describe(Session, () => {
  it('should give the log so far as a complete recording (with its end record) and go on taking inputs', () => {
    const s = Session.create({ ...base, cpus: 2 });
    s.runWorkloads([['cat', '/etc/motd']]);
    const saved = s.completeText();
    const valid = Session.readLog(enc(saved), 'saved.int3log');
    expect(valid.end).toMatchObject({ type: 'end', entries: s.log().length, stop: 'complete', hash: s.hash() });
    expect(
      Session.replay(enc(saved), 'saved.int3log', { image, imageName: 'vmlinux', programs: sampleProgram }).hash(),
    ).toBe(s.hash());
    s.runWorkloads([['hello']]);
    expect(s.text().startsWith(saved.slice(0, saved.lastIndexOf('\n', saved.length - 2) + 1))).toBe(true);
  });

  it('should give byte-identical logs for the same inputs', () => {
    expect(record(4).text()).toBe(record(4).text());
  });

  it('should journal inputs, caused events and a checkpoint after every input', () => {
    const types = record()
      .log()
      .map((e) => e.type);
    expect(types[0]).toBe('config');
    expect(types.filter((t) => t === 'checkpoint')).toHaveLength(types.filter((t) => t.startsWith('input:')).length);
    expect(types).toContain('task:created');
    expect(types).toContain('task:exited');
    expect(types).toContain('task:signalled');
    expect(types).toContain('printk');
    expect(types).toContain('trap:raised');
  });

  it('should replay a recorded log to identical state hashes and the same output', () => {
    const rec = record();
    const replay = Session.replay(enc(rec.text()), 'run.int3log', base);
    expect(replay.text()).toBe(rec.text());
    expect(replay.machine.console.map((c) => c.text)).toEqual(rec.machine.console.map((c) => c.text));
  });

  it('should refuse a log recorded with another image', () => {
    const rec = record();
    const other = image.slice();
    other[other.length - 1] ^= 1;
    expect(() =>
      Session.replay(enc(rec.text()), 'run.int3log', { ...base, image: other, imageName: 'mine.elf' }),
    ).toThrow(/run.int3log was recorded with kernel image vmlinux .*mine.elf differs/);
  });

  it('should detect a replay that diverges from its checkpoints', () => {
    const entries = decodeLog(enc(record().text()), 'r');
    const i = entries.findIndex((e) => e.type === 'checkpoint');
    entries[i] = { ...entries[i], hash: '0'.repeat(64) };
    const tampered = logHeaderLine() + entries.map(encodeLogLine).join('');
    expect(() => Session.replay(enc(tampered), 'r.int3log', base)).toThrow(
      `r.int3log: replay diverged at entry ${i} (line ${i + 2}): the state hash differs`,
    );
  });

  it('should take at most one snapshot per snapshotEveryNs of virtual time, however many inputs', () => {
    const s = Session.create({ ...base, cpus: 2, snapshotEveryNs: 100_000 });
    const taken = vi.spyOn(s.machine, 'snapshot');
    const n = 60;
    s.runWorkloads(Array.from({ length: n }, () => ['hello']));
    expect(s.log().filter((e) => e.type === 'input:spawn')).toHaveLength(n);
    expect(taken.mock.calls.length).toBeLessThanOrEqual(1 + Math.floor(s.machine.clock(0) / 100_000));
    expect(taken.mock.calls.length).toBeLessThan(n / 4);
  });

  it('should journal the same log when an input:run is paused and resumed (applyPausable)', () => {
    const whole = Session.create(base);
    whole.apply({ type: 'input:spawn', argv: ['spin', '30000'] });
    whole.apply({ type: 'input:run', pids: [1] });
    const paused = Session.create(base);
    paused.apply({ type: 'input:spawn', argv: ['spin', '30000'] });
    let calls = 0;
    const every3 = () => ++calls % 3 === 0;
    let pauses = 0;
    for (let done = paused.applyPausable({ type: 'input:run', pids: [1] }, every3); !done; pauses++) {
      expect(() => paused.apply({ type: 'input:run' })).toThrow(/EBUSY|before applying new inputs/);
      done = paused.resume(every3);
    }
    expect(pauses).toBeGreaterThan(2);
    expect(paused.text()).toBe(whole.text());
  });

  it('should refuse an input nobody handles, journaling nothing', () => {
    const s = Session.create(base);
    const before = s.log().length;
    expect(() => s.apply({ type: 'input:nope' })).toThrow("no handler for input type 'input:nope'");
    expect(s.log()).toHaveLength(before);
  });
});
