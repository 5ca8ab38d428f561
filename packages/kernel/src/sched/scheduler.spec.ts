import { AddressSpace } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { Scheduler } from './scheduler.js';
import { Task } from './task.js';

const space = new AddressSpace();
const task = (pid: number) => new Task(pid, pid, `t${pid}`, undefined, space, 0n, 0n, 0, false);

describe('Scheduler.takeChangedTasks', () => {
  it('should list the tasks that changed, each once, and start again after a take', () => {
    const s = new Scheduler({ cpus: [{}], pcpu: [0n], space } as unknown as ConstructorParameters<typeof Scheduler>[0]);
    const [a, b] = [task(1), task(2)];
    s.add(a);
    s.add(b);
    a.state = 'blocked';
    expect(s.takeChangedTasks()).toEqual(new Set([a, b]));
    expect(s.takeChangedTasks()).toEqual(new Set());
    b.context = undefined;
    expect(s.takeChangedTasks()).toEqual(new Set([b]));
  });

  it("should drop its list and answer 'all' once tasks that came and went outgrow it, keeping none of them", () => {
    const s = new Scheduler({ cpus: [{}], pcpu: [0n], space } as unknown as ConstructorParameters<typeof Scheduler>[0]);
    for (let pid = 1; pid <= 5000; pid++) {
      const t = task(pid);
      s.add(t);
      t.state = 'dead';
      (s.tasks as Map<number, Task>).delete(pid);
    }
    expect(s.takeChangedTasks()).toBe('all');
    expect(s.takeChangedTasks()).toEqual(new Set());
  });
});
