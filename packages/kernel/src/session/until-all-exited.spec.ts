import { describe, expect, it } from 'vitest';
import { untilAllExited } from './until-all-exited.js';

/** Tasks whose `exited` reads are counted; `exit(i)` ends task i. */
function tasks(n: number) {
  const done = new Array<boolean>(n).fill(false);
  let reads = 0;
  const list = done.map((_, i) => ({
    get exited() {
      reads++;
      return done[i];
    },
  }));
  return { list, exit: (i: number) => (done[i] = true), reads: () => reads };
}

describe(untilAllExited, () => {
  it('should hold once every task exited, in any order', () => {
    const t = tasks(3);
    const until = untilAllExited(t.list);
    expect(until()).toBe(false);
    t.exit(2);
    t.exit(1);
    expect(until()).toBe(false);
    t.exit(0);
    expect(until()).toBe(true);
    expect(until()).toBe(true);
  });

  it('should count a task that does not exist as exited', () => {
    expect(untilAllExited([undefined, undefined])()).toBe(true);
    expect(untilAllExited([])()).toBe(true);
  });

  it('should read each task about once over a whole run, not once per check', () => {
    const n = 1_000;
    const t = tasks(n);
    const until = untilAllExited(t.list);
    let checks = 0;
    for (let i = 0; i < n; i++) {
      for (let round = 0; round < 5; round++) {
        checks++;
        until();
      }
      t.exit(i);
    }
    checks++;
    expect(until()).toBe(true);
    expect(t.reads()).toBeLessThanOrEqual(n + checks);
  });
});
