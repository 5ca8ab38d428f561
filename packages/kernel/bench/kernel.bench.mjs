#!/usr/bin/env node
// `pnpm bench` for @int3/kernel: boot time, system calls per host second, and MIPS under `spin` on
// two CPUs, one line per figure with the command that reproduces it. Needs a build (`tsc -b`): it
// imports ../dist/index.js. Options: --only boot|syscalls|mips|spawns, --runs N (boot samples, default
// 9), --spin N (rounds per spin task, default 1500000), --spawns N (hello tasks, default 1000).
//
// How system calls are counted, without instrumenting the timed run: the sample kernel is
// deterministic, so a workload makes the same system calls every time it runs alone. A calibration
// run on one CPU with quantum 1 stops after every instruction; each stop where the CPU's rip is
// `do_syscall_64` is one system call (entry_SYSCALL_64 calls it exactly once per `syscall`). The timed
// runs are fresh, unprobed machines (default quantum) running the same workload: syscalls/s is the
// calibrated count over the host time of `spawn` + `run` of the median run: an end-to-end figure that includes task
// creation (ELF load) and the user code between calls (dd's fill/verify loops dominate its run; the
// line shows the virtual instructions per run so the mix is visible).
import { performance } from 'node:perf_hooks';
import { Machine, readSampleImage, Session, sampleProgram } from '../dist/index.js';
import { stateHasher } from '../dist/session/state-hash.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const only = opt('only', undefined);
const bootRuns = Number(opt('runs', 9));
const spinRounds = Number(opt('spin', 1_500_000));
const spawnCount = Number(opt('spawns', 1000));
const SCRIPT = 'node packages/kernel/bench/kernel.bench.mjs';
const image = readSampleImage();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x, digits = 1) => x.toFixed(digits);

function boot(cpus, quantum) {
  return Machine.boot({ image, cpus, programs: sampleProgram, ...(quantum ? { quantum } : {}) });
}

/** Runs one workload to completion; returns the task and the host milliseconds spawn + run took. */
function timed(m, argv) {
  const t0 = performance.now();
  const task = m.spawn(argv);
  const outcome = m.run({ until: () => task.exited });
  const ms = performance.now() - t0;
  if (outcome.reason !== 'done' || task.exitCode !== 0) {
    throw new Error(`${argv.join(' ')}: ${JSON.stringify(outcome)}, exit ${task.exitCode}\n${m.printk.dmesg()}`);
  }
  return { task, ms, insns: m.cpus.reduce((s, c) => s + c.virtualRetired, 0) };
}

/** Exact system-call count of a workload run alone (see the header: quantum-1 calibration). */
function countSyscalls(argv) {
  const m = boot(1, 1);
  const entry = m.kallsyms.lookupName('do_syscall_64').address;
  const cpu = m.cpus[0];
  let calls = 0;
  let last = -1;
  const task = m.spawn(argv);
  m.run({
    until: () => {
      // A stop can repeat at the same instruction (a gate, a blocked task): count each entry once.
      if (cpu.rip === entry && cpu.retired !== last) {
        calls++;
        last = cpu.retired;
      }
      return task.exited;
    },
  });
  return calls;
}

function benchBoot() {
  const first = performance.now();
  boot(2);
  const cold = performance.now() - first;
  const samples = [];
  for (let i = 0; i < bootRuns; i++) {
    const t0 = performance.now();
    boot(2);
    samples.push(performance.now() - t0);
  }
  console.log(
    `boot: ${fmt(median(samples))} ms median of ${bootRuns} (cold first boot ${fmt(cold)} ms), 2 CPUs, start_kernel to rootfs ready — ${SCRIPT} --only boot`,
  );
}

function benchSyscalls() {
  for (const [argv, repeat] of [
    [['dd', '16'], 15],
    [['cat', '/etc/motd'], 60],
    [['fork', '20'], 25],
  ]) {
    const perRun = countSyscalls(argv);
    timed(boot(1), argv); // warm-up: JIT and decode caches of a first run are not what we measure
    const runs = [];
    let insns = 0;
    for (let i = 0; i < repeat; i++) {
      const m = boot(1);
      const before = m.cpus[0].virtualRetired;
      const r = timed(m, argv);
      runs.push(r.ms);
      insns = r.insns - before;
    }
    // The median run: a run's time swings with the garbage collector's and the machine's moments.
    const ms = median(runs);
    const rate = perRun / (ms / 1000);
    console.log(
      `syscalls: ${fmt(rate, 0)} syscalls/s (\`${argv.join(' ')}\`, the median of ${repeat} runs, ${perRun} syscalls and ${insns} virtual instructions each, ${fmt(ms)} ms incl. spawn; fastest ${fmt(Math.min(...runs))} ms), 1 CPU — ${SCRIPT} --only syscalls`,
    );
  }
}

/** MIPS under `spin` with the CPUs' block compiler off (INT3_JIT=0) and on, booted after setting it. */
function benchMips() {
  const saved = process.env.INT3_JIT;
  for (const [engine, flag] of [
    ['interpreter', '0'],
    ['compiler', '1'],
  ]) {
    process.env.INT3_JIT = flag;
    const m = boot(2);
    timed(boot(2), ['spin', '20000']); // warm-up
    const before = m.cpus.reduce((s, c) => s + c.virtualRetired, 0);
    const t0 = performance.now();
    const tasks = [m.spawn(['spin', String(spinRounds)]), m.spawn(['spin', String(spinRounds)])];
    const outcome = m.run({ until: () => tasks.every((t) => t.exited) });
    const seconds = (performance.now() - t0) / 1000;
    if (outcome.reason !== 'done' || tasks.some((t) => t.exitCode !== 0))
      throw new Error(`spin: ${JSON.stringify(outcome)}`);
    const insns = m.cpus.reduce((s, c) => s + c.virtualRetired, 0) - before;
    const perCpu = m.cpus.map((c) => c.virtualRetired);
    const stats = m.cpus.map((c) => c.jit?.stats).filter((x) => x !== undefined);
    const compiled = stats.reduce((n, x) => n + x.retired, 0);
    const where =
      stats.length === 0
        ? ''
        : `; ${stats.reduce((n, x) => n + x.compiled, 0)} regions compiled in ${fmt(stats.reduce((n, x) => n + x.compileMs, 0))} ms, ${stats.reduce((n, x) => n + x.entries, 0)} entries, ${fmt((compiled / m.cpus.reduce((n, c) => n + c.retired, 0)) * 100, 1)}% of instructions (boot included) retired in compiled code`;
    console.log(
      `mips (${engine}): ${fmt(insns / seconds / 1e6, 2)} MIPS (2 × \`spin ${spinRounds}\` on 2 CPUs: ${insns} virtual instructions [${perCpu.join(' + ')} per CPU incl. boot] in ${fmt(seconds, 2)} s host${where}) — INT3_JIT=${flag} ${SCRIPT} --only mips`,
    );
  }
  if (saved === undefined) delete process.env.INT3_JIT;
  else process.env.INT3_JIT = saved;
}

/**
 * `int3 record --run hello` × N in the session's terms: N spawns, each journaled with its checkpoint
 * (the state hash), all tasks alive together, then one run. Host time per spawn for the first and
 * the last quarter: equal when a checkpoint costs what changed, growing when it walks every task.
 */
function benchSpawns() {
  const s = Session.create({ image, imageName: 'vmlinux', programs: sampleProgram });
  const quarter = Math.max(1, Math.floor(spawnCount / 4));
  const per = [];
  let pages = 0;
  let t0 = performance.now();
  for (let i = 1; i <= spawnCount; i++) {
    s.apply({ type: 'input:spawn', argv: ['hello'] });
    if (i > 1) pages = Math.max(pages, stateHasher(s.machine).lastStats.pagesHashed);
    if (i % quarter === 0) {
      per.push((performance.now() - t0) / quarter);
      t0 = performance.now();
    }
  }
  const r0 = performance.now();
  s.apply({ type: 'input:run', pids: s.spawned.map((t) => t.pid) });
  const runMs = performance.now() - r0;
  console.log(
    `spawns: ${fmt(per[0], 2)} ms per spawn in the first quarter, ${fmt(per.at(-1), 2)} ms in the last (${spawnCount} \`hello\` alive together, each with its checkpoint; at most ${pages} pages hashed per checkpoint after the first), run ${fmt(runMs / 1000, 2)} s — ${SCRIPT} --only spawns`,
  );
}

if (!only || only === 'boot') benchBoot();
if (!only || only === 'syscalls') benchSyscalls();
if (!only || only === 'mips') benchMips();
if (!only || only === 'spawns') benchSpawns();
