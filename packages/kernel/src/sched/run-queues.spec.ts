import { AddressSpace } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { RunQueues } from './run-queues.js';
import { Task } from './task.js';

const space = new AddressSpace();
const task = (pid: number, cpu: number) => new Task(pid, pid, `t${pid}`, undefined, space, 0n, 0n, cpu, false);

describe(RunQueues, () => {
  it('should place new tasks on the least loaded CPU, lowest index first', () => {
    const rq = new RunQueues(3);
    const picks: number[] = [];
    for (let pid = 1; pid <= 5; pid++) {
      const cpu = rq.pickCpu();
      picks.push(cpu);
      rq.enqueue(task(pid, cpu));
    }
    expect(picks).toEqual([0, 1, 2, 0, 1]);
  });

  it('should run tasks of a CPU in round-robin order', () => {
    const rq = new RunQueues(1);
    const [a, b] = [task(1, 0), task(2, 0)];
    rq.enqueue(a);
    rq.enqueue(b);
    rq.enqueue(a);
    expect(rq.next(0)).toBe(a);
    rq.enqueue(a);
    expect(rq.next(0)).toBe(b);
    expect(rq.next(0)).toBe(a);
    expect(rq.next(0)).toBeUndefined();
  });

  it('should forget dequeued tasks', () => {
    const rq = new RunQueues(1);
    const a = task(1, 0);
    rq.enqueue(a);
    rq.dequeue(a);
    expect(rq.length(0)).toBe(0);
  });
});
