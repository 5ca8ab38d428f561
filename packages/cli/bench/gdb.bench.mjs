#!/usr/bin/env node
// `pnpm bench` for the gdb stub's time travel, on a recorded `spin` of about 10⁸ instructions (2 CPUs):
// replaying it once under gdb (a snapshot every 100 µs of virtual time, at most 4096), seeking to a log
// event, reverse-stepi, reverse-continue to the previous breakpoint hit, and the two walks over the
// whole run that run one instruction at a time under the step hook: a continue with a breakpoint set,
// and a reverse-continue that finds no hit before the start; then, on a live run of the same spin
// (`trace --gdb`), a continue to the end with a breakpoint set, at full speed (the kernel's debug
// stops) and as every live continue ran before them (one instruction at a time). Targets (issue 19): ≤ 100 ms for a reverse step and a seek. Needs a build
// (`tsc -b`): it imports ../dist.
// Options: --iterations N (spin's argument; default 8000000, about 10⁸ instructions).
import { performance } from 'node:perf_hooks';
import { GDB_RUN, GDB_RUN_INSTRUCTIONS, gdbRunState, retiredNow } from '../dist/gdb/live/gdb-inputs.js';
import { handleGdbInputs } from '../dist/gdb/live/trace-gdb.js';
import { MachineTarget } from '../dist/gdb/replay/machine-target.js';
import { GDB_MAX_SNAPSHOTS, GDB_SNAPSHOT_EVERY_NS } from '../dist/gdb/replay-gdb.js';
import { createTracedSession, readKernelImage, replayTracedSession } from '../dist/tracing/traced-session.js';

const args = process.argv.slice(2);
const at = args.indexOf('--iterations');
const iterations = at >= 0 ? args[at + 1] : '8000000';
const image = readKernelImage(undefined, 'bench');
const RIP = 16;
const ms = (t) => `${t.toFixed(1)} ms`;
async function time(fn) {
  const t0 = performance.now();
  const r = await fn();
  return [performance.now() - t0, r];
}

// Step 1: the recording, then the replay under gdb that takes the snapshots.
const [recordMs, log] = await time(() => {
  const rec = createTracedSession(image, 2, { recordEvents: true });
  rec.session.runWorkloads([['spin', iterations]]);
  rec.session.end();
  return { text: new TextEncoder().encode(rec.session.text()), entries: rec.session.log() };
});
const [replayMs, traced] = await time(() => {
  const t = replayTracedSession(log.text, 'spin.int3log', image, -1, {
    snapshotEveryNs: GDB_SNAPSHOT_EVERY_NS,
    maxSnapshots: GDB_MAX_SNAPSHOTS,
  });
  for (const e of log.entries) if (e.type.startsWith('input:')) t.session.apply(e);
  return t;
});
const s = traced.session;
const [startMs, gdb] = await time(() => new MachineTarget(traced, log.entries));
const total = s
  .snapshotList()
  .at(-1)
  .machine.cpus.reduce((n, c) => n + c.context.retired, 0);
const thread = gdb.stopEvent().thread;
const entry = gdb.readRegisters(thread)[RIP];
console.log(
  `gdb time travel, spin ${iterations}: ${total.toLocaleString('en')} instructions, ${s.snapshotList().length} snapshots`,
);
console.log(`  record ${ms(recordMs)}; replay under gdb ${ms(replayMs)}; to the first instruction ${ms(startMs)}`);

// Step 2: seek to the last event before the end record, and back to the first.
const last = log.entries.length - 2;
const [eventMs] = await time(() => gdb.monitor(`event ${last}`));
console.log(
  `  seek to event ${last}: ${ms(eventMs)} (${s.lastSeek.instructions} instructions re-executed; target ≤ 100 ms)`,
);
gdb.monitor('event 0');

// Step 3: a breakpoint in spin's loop; a hit deep in the run; reverse-continue to the hit before.
for (let k = 0; k < 200; k++) await gdb.resume({ action: 'step', direction: 'forward', thread });
const loop = gdb.readRegisters(thread)[RIP];
gdb.monitor(`event ${last}`);
gdb.insertBreakpoint(0, loop, 1);
const [rcMs] = await time(() => gdb.resume({ action: 'continue', direction: 'reverse', thread }));
console.log(`  reverse-continue to the previous hit: ${ms(rcMs)}`);

// Step 4: reverse-stepi, one after another.
const steps = 20;
let worst = 0;
const [stepsMs] = await time(async () => {
  for (let k = 0; k < steps; k++) {
    const [one] = await time(() => gdb.resume({ action: 'step', direction: 'reverse', thread }));
    worst = Math.max(worst, one);
  }
});
console.log(`  reverse-stepi: ${ms(stepsMs / steps)} mean, ${ms(worst)} worst of ${steps} (target ≤ 100 ms)`);
gdb.removeBreakpoint(0, loop, 1);

// Step 5: the walks over the whole run, one instruction at a time.
gdb.monitor('event 0');
gdb.insertBreakpoint(0, 0x1n, 1);
const [fwdMs] = await time(() => gdb.resume({ action: 'continue', direction: 'forward', thread }));
console.log(
  `  continue to the end with a breakpoint set: ${ms(fwdMs)} (${(total / fwdMs / 1000).toFixed(1)} M instructions/s)`,
);
gdb.removeBreakpoint(0, 0x1n, 1);
gdb.insertBreakpoint(0, entry, 1);
const [backMs] = await time(() => gdb.resume({ action: 'continue', direction: 'reverse', thread }));
console.log(`  reverse-continue from the end back to the first instruction: ${ms(backMs)}`);

// Step 6: a live run of the same spin under gdb, continued to its end with a breakpoint set that
// it never reaches: as MachineTarget does it now (full speed), and as it did before the debug stops
// (resumes of 10^5 instructions, one at a time under the step probe).
function liveSession() {
  const t = createTracedSession(image, 2, {
    recordEvents: true,
    snapshotEveryNs: GDB_SNAPSHOT_EVERY_NS,
    maxSnapshots: GDB_MAX_SNAPSHOTS,
  });
  handleGdbInputs(t);
  t.session.apply({ type: 'input:spawn', argv: ['spin', iterations] });
  return t;
}
const retiredBy = (t) => t.session.machine.cpus.reduce((n, c) => n + c.retired, 0);
const fastLive = liveSession();
const target = new MachineTarget(fastLive, fastLive.session.log(), {
  pids: fastLive.session.spawned.map((task) => task.pid),
});
target.insertBreakpoint(0, 0x1n, 1);
const [fastMs] = await time(() => target.resume({ action: 'continue', direction: 'forward', thread: 1 }));
console.log(
  `  live: continue to the end with a breakpoint set, full speed: ${ms(fastMs)} (${(retiredBy(fastLive) / fastMs / 1000).toFixed(1)} M instructions/s)`,
);
const slowLive = liveSession();
const m = slowLive.session.machine;
const probe = gdbRunState(m).probe;
const pids = slowLive.session.spawned.map((task) => task.pid);
const resume = (extra) => {
  m.kernel.stepHook = probe.hook;
  try {
    slowLive.session.apply({
      type: GDB_RUN,
      pids,
      from: retiredNow(m),
      instructions: GDB_RUN_INSTRUCTIONS,
      breakpoints: ['1'],
      watches: [],
      step: -1,
      ...extra,
    });
  } finally {
    m.kernel.stepHook = undefined;
  }
};
resume({ first: true });
const [slowMs] = await time(async () => {
  while (gdbRunState(m).outcome === undefined) {
    resume({});
    await new Promise((r) => setImmediate(r));
  }
});
console.log(
  `  live: the same, stepped as before the debug stops: ${ms(slowMs)} (${(retiredBy(slowLive) / slowMs / 1000).toFixed(1)} M instructions/s)`,
);
