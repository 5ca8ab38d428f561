import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConsoleLog, type ConsoleWrite } from './console-log.js';

const w = (at: number, text: string): ConsoleWrite => ({ at, cpu: 0, pid: 1, text });
const plain = (writes: readonly ConsoleWrite[]) =>
  createHash('sha256')
    .update(writes.map((x) => `${x.at}:${x.cpu}:${x.pid}:${x.text}`).join(''))
    .digest('hex');

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
});
