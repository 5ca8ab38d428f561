import { createHash, type Hash } from 'node:crypto';
import type { AddressSpace } from '@int3/cpu';
import { describe, expect, it } from 'vitest';
import { Machine } from '../machine/machine.js';
import { KernelLayout } from '../mm/kernel-layout.js';
import { readSampleImage, sampleProgram } from '../sample-image.js';
import { saveTaskRegs, type TaskRegs } from '../sched/task-regs.js';
import { Session } from './session.js';
import { type StateHashStats, stateHash, stateHasher } from './state-hash.js';

/** The state hash as the event log documents it (§2, checkpoint), computed from scratch the plain way. */
function documentedHash(m: Machine): string {
  const sha = () => createHash('sha256');
  const u64 = (h: Hash, v: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt.asUintN(64, v));
    h.update(b);
  };
  const regs = (h: Hash, r: TaskRegs) => {
    for (const g of r.gpr) u64(h, g);
    for (const v of [r.rip, BigInt(r.rflags), BigInt(r.cs), BigInt(r.ss), r.fsBase, r.gsBase, r.kernelGsBase])
      u64(h, v);
  };
  /** SHA-256 over each 2 MiB group (u64 index, digest), a group over its pages (address, flags, SHA-256 of bytes). */
  const memory = (space: AddressSpace, keep: (a: bigint) => boolean) => {
    const groups = new Map<bigint, Hash>();
    for (const p of space.pages()) {
      if (!keep(p.address)) continue;
      const g = p.address >> 21n;
      if (!groups.has(g)) groups.set(g, sha());
      const gh = groups.get(g)!;
      u64(gh, p.address);
      u64(gh, BigInt(p.flags));
      gh.update(sha().update(p.data).digest());
    }
    const h = sha();
    for (const [g, gh] of groups) {
      u64(h, g);
      h.update(gh.digest());
    }
    return h.digest();
  };
  const h = sha();
  h.update(memory(m.space, () => true));
  for (let c = 0; c < m.cpus.length; c++) {
    regs(h, saveTaskRegs(m.cpus[c]));
    u64(h, BigInt(m.clock(c)));
    u64(h, BigInt(m.sched.current[c]?.pid ?? -1));
  }
  /** SHA-256 over each group of 64 pids (u64 index, digest), a group over its tasks (u64 pid, digest). */
  const taskGroups = new Map<number, Hash>();
  for (const t of [...m.sched.tasks.values()].sort((a, b) => a.pid - b.pid)) {
    const th = sha().update(`${t.pid}:${t.state}:${t.cpu}:${t.exitCode}:`);
    if (t.context) regs(th, t.context);
    th.update(memory(t.mm, (a) => a < KernelLayout.KERNEL_HALF));
    const g = Math.floor(t.pid / 64);
    if (!taskGroups.has(g)) taskGroups.set(g, sha());
    u64(taskGroups.get(g)!, BigInt(t.pid));
    taskGroups.get(g)!.update(th.digest());
  }
  const tasks = sha();
  for (const [g, gh] of taskGroups) {
    u64(tasks, BigInt(g));
    tasks.update(gh.digest());
  }
  h.update(tasks.digest());
  for (const r of m.printk.records()) h.update(`${r.seq}:${r.timestampNs}:${r.level}:${r.cpu}:${r.text}\n`);
  const console = sha();
  for (const w of m.console) console.update(`${w.at}:${w.cpu}:${w.pid}:${w.text}`);
  h.update(console.digest());
  return h.digest('hex');
}

describe(stateHash, () => {
  it('should be the documented SHA-256 at boot, with tasks alive, forked, exited and gone', () => {
    const m = Machine.boot({ image: readSampleImage(), cpus: 2, programs: sampleProgram });
    expect(stateHash(m)).toBe(documentedHash(m));
    for (const argv of [['fork', '3'], ['hello'], ['cat', '/etc/motd'], ['fault']]) m.spawn(argv);
    expect(stateHash(m)).toBe(documentedHash(m));
    for (const deadlineNs of [30_000, 200_000]) {
      m.run({ deadlineNs });
      expect(stateHash(m)).toBe(documentedHash(m));
    }
    m.run({});
    expect(m.console.length).toBeGreaterThan(0);
    expect(stateHash(m)).toBe(documentedHash(m));
  });

  it('should change when one byte of a task memory changes', () => {
    const m = Machine.boot({ image: readSampleImage(), cpus: 1, programs: sampleProgram });
    const t = m.spawn(['hello']);
    const before = stateHash(m);
    const top = KernelLayout.USER_STACK_TOP - 4096n;
    t.mm.writeU8(top, t.mm.readU8(top) ^ 1);
    expect(stateHash(m)).not.toBe(before);
  });

  it('should stay the documented hash through a restore, a write to shared text and a re-protected page', () => {
    const m = Machine.boot({ image: readSampleImage(), cpus: 2, programs: sampleProgram });
    const a = m.spawn(['hello']);
    const b = m.spawn(['hello']);
    m.run({ deadlineNs: 50_000 });
    const snap = m.snapshot();
    const at = stateHash(m);
    m.run({});
    expect(stateHash(m)).toBe(documentedHash(m));
    m.restore(snap);
    expect(stateHash(m)).toBe(at);
    expect(stateHash(m)).toBe(documentedHash(m));
    // hello's text is one page both tasks map: a host write through one space changes both tasks.
    const text = [...a.mm.pages()].find((p) => p.address < KernelLayout.KERNEL_HALF && (p.flags & 2) === 0)!;
    expect(b.mm.readU8(text.address)).toBe(a.mm.readU8(text.address));
    a.mm.writeU8(text.address, a.mm.readU8(text.address) ^ 0xff);
    expect(stateHash(m)).toBe(documentedHash(m));
    a.mm.protect(text.address, 4096, text.flags | 2);
    expect(stateHash(m)).toBe(documentedHash(m));
    m.run({});
    expect(stateHash(m)).toBe(documentedHash(m));
  });
});

describe(stateHasher, () => {
  /** Pages hashed at the checkpoint of the n-th of `count` spawns (all alive together). */
  const pagesAtSpawn = (count: number) => {
    const s = Session.create({ image: readSampleImage(), imageName: 'vmlinux', programs: sampleProgram });
    const hashed: number[] = [];
    for (let i = 0; i < count; i++) {
      s.apply({ type: 'input:spawn', argv: ['hello'] });
      hashed.push(stateHasher(s.machine).lastStats.pagesHashed);
    }
    return { s, hashed };
  };

  it('should hash, per checkpoint, what changed since the last one, however many tasks exist', () => {
    const { s, hashed } = pagesAtSpawn(120);
    const perTask = s.spawned[0].mm.pageMap.size;
    expect(s.machine.sched.tasks.size).toBe(120);
    // The first checkpoint hashes the booted kernel; each later spawn its own pages and the few
    // kernel pages it wrote: as many for the 100th spawn as for the 60th (the kernel heap's pattern
    // repeats every 8 tasks), not more as tasks accumulate.
    expect(hashed[0]).toBeGreaterThan(perTask);
    expect(hashed.slice(80, 120)).toEqual(hashed.slice(40, 80));
    expect(Math.max(...hashed.slice(1))).toBeLessThan(perTask + 16);
    expect(stateHash(s.machine)).toBe(documentedHash(s.machine));
    expect(stateHasher(s.machine).lastStats).toEqual({
      pagesHashed: 0,
      groupsHashed: 0,
      spacesVisited: 1,
      tasksHashed: 0,
      taskGroupsHashed: 0,
    });
  });

  it('should visit, per checkpoint, the tasks and spaces that changed: as few at the 300th spawn as at the 30th', () => {
    // A regression test of #13: a checkpoint walked every live task (about 0.5 µs each), so n
    // spawns cost O(n²). Counted, not timed: what the 30th and the 300th spawn's checkpoints visit.
    const s = Session.create({ image: readSampleImage(), imageName: 'vmlinux', programs: sampleProgram });
    const seen: StateHashStats[] = [];
    for (let i = 0; i < 300; i++) {
      s.apply({ type: 'input:spawn', argv: ['hello'] });
      seen.push(stateHasher(s.machine).lastStats);
    }
    const at = (n: number) => seen[n - 1];
    expect(s.machine.sched.tasks.size).toBe(300);
    // The new task (and its space, the kernel's): nothing of the 299 others.
    expect(at(300).tasksHashed).toBe(1);
    expect(at(300).spacesVisited).toBe(at(30).spacesVisited);
    expect(at(300).spacesVisited).toBeLessThanOrEqual(2);
    expect(at(300).taskGroupsHashed).toBe(1);
    expect(stateHash(s.machine)).toBe(documentedHash(s.machine));
    // A run of them all: each exits and leaves the table (each changed, so each leaves the tree).
    s.apply({ type: 'input:run', pids: s.spawned.map((t) => t.pid) });
    expect(s.machine.sched.tasks.size).toBe(0);
    expect(stateHash(s.machine)).toBe(documentedHash(s.machine));
  });

  it("should rehash every task it knows of when the scheduler answers 'all' (its list overflowed)", () => {
    const m = Machine.boot({ image: readSampleImage(), cpus: 2, programs: sampleProgram });
    const tasks = [m.spawn(['hello']), m.spawn(['fork', '3']), m.spawn(['spin', '100000'])];
    expect(stateHash(m)).toBe(documentedHash(m));
    m.run({ until: () => tasks[0].exited && tasks[1].exited });
    // What the scheduler answers after a long run of tasks coming and going between two hashes.
    const sched = m.sched as { takeChangedTasks(): ReadonlySet<unknown> | 'all' };
    const take = sched.takeChangedTasks.bind(sched);
    sched.takeChangedTasks = () => {
      take();
      return 'all';
    };
    expect(stateHash(m)).toBe(documentedHash(m));
    expect(stateHasher(m).lastStats.tasksHashed).toBe(m.sched.tasks.size);
  });

  it('should rehash only the tasks that ran: a run of one task among many hashes that task', () => {
    const { s } = pagesAtSpawn(40);
    s.apply({ type: 'input:run', pids: [s.spawned[0].pid] });
    const stats = stateHasher(s.machine).lastStats;
    expect(stats.tasksHashed).toBeLessThan(40);
    expect(stateHash(s.machine)).toBe(documentedHash(s.machine));
  });
});
