import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConsoleLog, type ConsoleWrite } from './console-log.js';

const w = (at: number, text: string): ConsoleWrite => ({ at, cpu: 0, pid: 1, text });
const plain = (writes: readonly ConsoleWrite[]) => {
  const h = createHash('sha256');
  for (const x of writes) h.update(`${x.at}:${x.cpu}:${x.pid}:${x.text}`);
  return h.digest('hex');
};

describe(ConsoleLog, () => {
  it('should keep a running digest of every write, restored with the writes', () => {
    const log = new ConsoleLog();
    expect(log.digest().toString('hex')).toBe(plain([]));
    log.push(w(1, 'Hello\n'));
    const saved = log.save();
    log.push(w(2, 'again\n'));
    expect(log.digest().toString('hex')).toBe(plain([w(1, 'Hello\n'), w(2, 'again\n')]));
    log.restore(saved);
    expect(log.writes).toEqual([w(1, 'Hello\n')]);
    expect(log.digest().toString('hex')).toBe(plain([w(1, 'Hello\n')]));
    log.push(w(3, 'other\n'));
    expect(log.digest().toString('hex')).toBe(plain([w(1, 'Hello\n'), w(3, 'other\n')]));
  });

  it('should keep a bounded tail of a console written for ever, its digest over every write', () => {
    const log = new ConsoleLog(10_000);
    const all: ConsoleWrite[] = [];
    let most = 0;
    for (let i = 0; i < 100_000; i++) {
      const write = w(i, `line ${String(i).padStart(4, '0')}\n`.slice(-10));
      all.push(write);
      log.push(write);
      most = Math.max(most, log.charsKept);
    }
    // 1,000,000 characters written; at most the capacity and one chunk (1024 writes) kept.
    expect(most).toBeLessThan(10_000 + 1024 * 10);
    expect(log.total).toBe(100_000);
    const kept = log.writes;
    expect(kept.length).toBeLessThan(2100);
    expect(kept).toEqual(all.slice(-kept.length));
    expect(log.since(99_990)).toEqual(all.slice(99_990));
    expect(log.since(0)).toEqual(kept);
    expect(log.digest().toString('hex')).toBe(plain(all));
  });

  it('should restore a save taken before writes were dropped', () => {
    const log = new ConsoleLog(100);
    const writes = Array.from({ length: 3000 }, (_, i) => w(i, 'x'.repeat(1 + (i % 7))));
    for (const x of writes.slice(0, 1500)) log.push(x);
    const saved = log.save();
    const keptThen = log.writes;
    for (const x of writes.slice(1500)) log.push(x);
    expect(log.writes[0]).not.toEqual(keptThen[0]);
    log.restore(saved);
    expect(log.writes).toEqual(keptThen);
    expect(log.total).toBe(1500);
    expect(log.digest().toString('hex')).toBe(plain(writes.slice(0, 1500)));
  });
});
