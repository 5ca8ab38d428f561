import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Machine, type RunOutcome } from '../src/machine/machine.js';
import type { KernelMemory } from '../src/mm/kernel-memory.js';
import { readSampleImage, sampleProgram } from '../src/sample-image.js';
import type { Task } from '../src/sched/task.js';

/** The allocators' bookkeeping is no part of the subsystem API: the test reads the KernelMemory behind it. */
const kernelMemory = (m: Machine) => m.kernel.memory as KernelMemory;

/**
 * The interleaving campaign: random quanta, CPU counts and mixes of concurrent workloads must never
 * break the kernel's invariants. `INT3_FUZZ_RUNS=1000` runs the full campaign (default 25);
 * `INT3_FUZZ_SEED=<n>` replays a reported seed.
 */
const RUNS = Number(process.env.INT3_FUZZ_RUNS ?? 25);
const SEED = process.env.INT3_FUZZ_SEED === undefined ? undefined : Number(process.env.INT3_FUZZ_SEED);
/** Virtual time allowed per run; far above what any mix needs, so hitting it means a livelock. */
const DEADLINE_NS = 2_000_000_000;

const image = readSampleImage();

interface Scenario {
  readonly cpus: number;
  readonly quantum: number;
  readonly workloads: readonly (readonly string[])[];
}

/** One workload argv; `slot` makes mkdir paths distinct within a scenario. */
const workload = (slot: number): fc.Arbitrary<readonly string[]> =>
  fc.oneof(
    fc.integer({ min: 1, max: 4 }).map((n) => ['fork', String(n)]),
    fc.integer({ min: 1, max: 4 }).map((n) => ['dd', String(n)]),
    fc.constantFrom('/etc/motd', '/etc/hostname', '/proc/version', '/sys/block/ram0/name').map((p) => ['cat', p]),
    fc.constant(['mkdir', `/tmp/w${slot}`]),
    fc.constantFrom('300', '1500', '4000').map((n) => ['spin', n]),
    fc.constant(['hello']),
    fc.constantFrom('/etc/hostname', '/dev/null').map((p) => ['open', p]),
  );

/** A scenario: at most one `net` (it listens on a fixed port), plus 1..4 other workloads. */
const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    cpus: fc.integer({ min: 1, max: 4 }),
    // Tiny quanta interleave at almost every instruction; they are where races show, so weigh them.
    quantum: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 20_000 })),
    net: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    others: fc
      .tuple(...[0, 1, 2, 3].map(workload))
      .chain((all) => fc.integer({ min: 1, max: 4 }).map((n) => all.slice(0, n))),
    netAt: fc.nat(4),
  })
  .map(({ cpus, quantum, net, others, netAt }) => {
    const workloads = [...others];
    if (net !== undefined) workloads.splice(Math.min(netAt, workloads.length), 0, ['net', String(net)]);
    return { cpus, quantum, workloads };
  });

const soloCache = new Map<string, string>();

/** What a workload prints when it runs alone on a fresh machine (its own pid's console text). */
function solo(argv: readonly string[]): string {
  const key = argv.join(' ');
  let out = soloCache.get(key);
  if (out === undefined) {
    const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
    const t = m.spawn(argv);
    m.run({ until: () => t.exited });
    out = textOf(m, t.pid);
    soloCache.set(key, out);
  }
  return out;
}

/** The console output of one pid, writes concatenated in order. */
function textOf(m: Machine, pid: number): string {
  return m.console
    .filter((c) => c.pid === pid)
    .map((c) => c.text)
    .join('');
}

/** The exact output a top-level workload must print, whatever ran beside it. */
function expectedOutput(argv: readonly string[], pid: number): string {
  switch (argv[0]) {
    case 'hello':
      return `Hello from int3, pid ${pid}!\n`;
    case 'open':
      return `open: ${argv[1]} is fd 3\n`;
    case 'mkdir':
      return `mkdir: created ${argv[1]}\n`;
    case 'fork':
      return `fork: reaped ${argv[1]} children\n`;
    case 'dd':
      return `dd: ${argv[1]} blocks of 4096 bytes written and verified\n`;
    default:
      return solo(argv); // cat, spin, net: content, hash and byte counts from a solo run
  }
}

/**
 * Heap objects that legitimately outlive the tasks: each created directory keeps its dentry and
 * inode (2 objects), and the RAM disk keeps the 4 KiB backing page of every block ever written
 * (brd allocates pages on first write), i.e. as many as the largest `dd`.
 */
function expectedResidue(workloads: readonly (readonly string[])[]): number {
  const dirs = workloads.filter((w) => w[0] === 'mkdir').length;
  const ddPages = Math.max(0, ...workloads.filter((w) => w[0] === 'dd').map((w) => Number(w[1])));
  return 2 * dirs + ddPages;
}

interface RunResult {
  readonly m: Machine;
  readonly tasks: readonly Task[];
  readonly outcome: RunOutcome;
  readonly children: Map<number, number>;
  readonly heapBefore: number;
  readonly vmallocBefore: string;
}

/** Boots, spawns every workload before anything runs, and runs until every task is gone. */
function runScenario(s: Scenario): RunResult {
  const m = Machine.boot({ image, cpus: s.cpus, quantum: s.quantum, programs: sampleProgram });
  const children = new Map<number, number>(); // child pid -> parent pid
  m.streams.tasks$.subscribe((e) => {
    if (e.type === 'task:created' && e.ppid !== 0) children.set(e.pid, e.ppid);
  });
  const heapBefore = kernelMemory(m).heap.liveCount;
  const vmallocBefore = JSON.stringify(
    kernelMemory(m)
      .vmalloc.allocations()
      .map(([a, n]) => [a.toString(16), n]),
  );
  const tasks = s.workloads.map((argv) => m.spawn(argv));
  const deadlineNs = m.clock(0) + DEADLINE_NS;
  const outcome = m.run({ until: () => tasks.every((t) => t.exited) && m.sched.tasks.size === 0, deadlineNs });
  return { m, tasks, outcome, children, heapBefore, vmallocBefore };
}

/** Checks every kernel invariant of a finished scenario; throws with a readable reason. */
function checkInvariants(s: Scenario, r: RunResult): void {
  const { m, tasks, outcome, children } = r;
  const dmesg = m.printk.dmesg();
  const where = `${JSON.stringify(s)}\n${dmesg}`;
  expect(outcome, where).toEqual({ reason: 'done' });
  expect(dmesg, where).not.toMatch(/Oops|BUG|segfault|panic|: [0-9a-f]{4} \[#\d+\] SMP/);
  for (const [i, t] of tasks.entries()) {
    expect(t.exitCode, `${s.workloads[i].join(' ')} (pid ${t.pid})\n${where}`).toBe(0);
    expect(t.killedBy, where).toBeUndefined();
    expect(textOf(m, t.pid), `${s.workloads[i].join(' ')} (pid ${t.pid})`).toBe(expectedOutput(s.workloads[i], t.pid));
  }
  // Every child printed what its parent's program says, and nothing else wrote to the console.
  const top = new Set(tasks.map((t) => t.pid));
  for (const [pid, ppid] of children) {
    const parent = tasks.find((t) => t.pid === ppid);
    expect(parent, `child ${pid} of unknown parent ${ppid}`).toBeDefined();
    const argv = s.workloads[tasks.indexOf(parent!)];
    const text = textOf(m, pid);
    if (argv[0] === 'fork') expect(text).toMatch(new RegExp(`^fork: child [1-${argv[1]}] is pid ${pid}\\n$`));
    else expect(text, `${argv.join(' ')} child ${pid}`).toBe('');
  }
  for (const t of tasks.filter((t) => s.workloads[tasks.indexOf(t)][0] === 'fork')) {
    const ids = [...children]
      .filter(([, ppid]) => ppid === t.pid)
      .map(([pid]) => Number(/child (\d+)/.exec(textOf(m, pid))?.[1]))
      .sort();
    const n = Number(s.workloads[tasks.indexOf(t)][1]);
    expect(ids).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  }
  expect(
    m.console.filter((c) => !top.has(c.pid) && !children.has(c.pid)),
    where,
  ).toEqual([]);
  // The kernel is quiescent and has given back what the tasks took.
  expect(m.space.readU32(m.kernel.image.symbols.kernel_flag), 'kernel_flag').toBe(0);
  expect(m.sched.tasks.size).toBe(0);
  expect(m.sched.current.every((t) => t === undefined)).toBe(true);
  expect(kernelMemory(m).heap.liveCount - r.heapBefore, 'heap objects left').toBe(expectedResidue(s.workloads));
  expect(
    JSON.stringify(
      kernelMemory(m)
        .vmalloc.allocations()
        .map(([a, n]) => [a.toString(16), n]),
    ),
    'kernel stacks',
  ).toBe(r.vmallocBefore);
}

describe('interleaving', () => {
  it(`should keep every kernel invariant over ${RUNS} random interleavings of concurrent workloads`, () => {
    fc.assert(
      fc.property(scenario, (s) => {
        checkInvariants(s, runScenario(s));
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  }, 600_000);

  it('should hold the invariants at the extremes: quantum 1 on 4 CPUs, and one CPU with quantum 20000', () => {
    const workloads = [
      ['net', '2'],
      ['fork', '3'],
      ['dd', '2'],
      ['mkdir', '/tmp/edge'],
      ['cat', '/etc/motd'],
    ];
    for (const s of [
      { cpus: 4, quantum: 1, workloads },
      { cpus: 1, quantum: 20_000, workloads },
    ]) {
      checkInvariants(s, runScenario(s));
    }
  });
});

/** Everything a run must reproduce bit for bit. */
function fingerprint(r: RunResult): string {
  const { m } = r;
  return JSON.stringify({
    console: m.console.map((c) => [c.at, c.cpu, c.pid, c.text]),
    printk: m.printk.records().map((p) => [p.timestampNs, p.cpu, p.level, p.text]),
    clocks: m.cpus.map((_, c) => m.clock(c)),
    retired: m.cpus.map((c) => c.virtualRetired),
    exits: r.tasks.map((t) => [t.pid, t.exitCode]),
  });
}

describe('determinism', () => {
  const samples = fc.sample(scenario, { seed: 0x1a73, numRuns: 3 });

  it.each(samples.map((s, i) => [i, s] as const))(
    'should reproduce scenario %i bit for bit when run twice',
    (_i, s) => {
      const a = runScenario(s);
      const b = runScenario(s);
      expect(a.outcome).toEqual({ reason: 'done' });
      expect(fingerprint(b)).toBe(fingerprint(a));
    },
  );

  it('should interleave differently with another quantum (the fingerprint is sensitive)', () => {
    const workloads = [['spin', '1500'], ['fork', '2'], ['hello']];
    const a = runScenario({ cpus: 2, quantum: 7, workloads });
    const b = runScenario({ cpus: 2, quantum: 5000, workloads });
    expect(fingerprint(a)).not.toBe(fingerprint(b));
    expect(runScenario({ cpus: 2, quantum: 7, workloads }).m.console).toEqual(a.m.console);
  });
});
