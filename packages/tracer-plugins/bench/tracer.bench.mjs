// @int3/tracer-plugins bench: kprobe event records per second, trace lines formatted per second, and
// bytes per record, for the kprobetrace doc's three-argument probe
//   p:ev do_sys_open dfd=%di filename=+0(%si):string flags=%dx
// Method (records/s): the event is defined and enabled through tracefs; `cat /etc/motd` runs, and at
// its real do_sys_open hit a second kprobe's handler calls the event's own kprobe dispatcher N times in
// a tight loop with the live PtRegs — so each iteration is exactly what one hit costs the tracer (task
// lookup, three fetch args incl. a user-string read, filter, ring-buffer write), without the int3 trap
// and single-step kprobes itself adds per hit (see packages/kprobes/bench for that).
// Method (lines/s): fill the buffer with M records that way, then time `readChunks('trace')` (streamed,
// the way `cat trace` reads) and `read('trace')` (one string). Rounds interleave the two measurements;
// medians are reported with the best.
// Runs on dist/ (build first). Usage: node bench/tracer.bench.mjs [records] [lines]
import { Machine, readSampleImage, sampleProgram } from '@int3/kernel';
import { Kprobes } from '@int3/kprobes';
import { TraceFs } from '../dist/index.js';

const N = Number(process.argv[2] ?? 2_000_000);
const M = Number(process.argv[3] ?? 200_000);
const ROUNDS = 5;
const image = readSampleImage();

/** Boots a machine with the event enabled and runs `cat` with `inHit(dispatch)` called at the hit. */
function atRealHit(bufferKb, inHit) {
  const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
  const k = Kprobes.init(m);
  const fs = new TraceFs(m, k);
  fs.write('buffer_size_kb', String(bufferKb));
  fs.write('kprobe_events', 'p:ev do_sys_open dfd=%di filename=+0(%si):string flags=%dx\n');
  fs.write('events/kprobes/ev/enable', '1');
  const kp = fs.kprobeEvents.probes[0].kp;
  let done = false;
  k.registerKprobe({
    symbolName: 'do_sys_open',
    preHandler: (_p, regs) => {
      if (!done) inHit(() => kp.preHandler(kp, regs));
      done = true;
      return 0;
    },
  });
  const t = m.spawn(['cat', '/etc/motd']);
  m.run({ until: () => t.exited });
  if (!done) throw new Error('do_sys_open was never hit');
  return fs;
}

/** Seconds of this process's CPU time (user + system) since `c0`: less disturbed by a busy machine. */
function cpuSeconds(c0) {
  const d = process.cpuUsage(c0);
  return (d.user + d.system) / 1e6;
}

/** Records per second over N dispatches (buffer wrapping in overwrite mode: a long trace's steady state). */
function recordRound() {
  let rate = 0;
  let cpuRate = 0;
  const fs = atRealHit(1408, (dispatch) => {
    for (let i = 0; i < 20_000; i++) dispatch(); // warm-up
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    for (let i = 0; i < N; i++) dispatch();
    rate = N / (Number(process.hrtime.bigint() - t0) / 1e9);
    cpuRate = N / cpuSeconds(c0);
  });
  const stats = fs.buffer.cpu(0).stats();
  return { rate, cpuRate, bytesPerRecord: stats.bytes / stats.entries };
}

/** Lines per second formatting M records: streamed (`readChunks('trace')`) and as one string (`read`). */
function formatRound(bytesPerRecord) {
  const fs = atRealHit(Math.ceil((M * (bytesPerRecord + 8)) / 1024) + 64, (dispatch) => {
    for (let i = 0; i < M - 1; i++) dispatch(); // + the real hit itself = M records
  });
  const lines = fs.buffer.entries;
  let t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let chars = 0;
  // Reading the last character flattens the chunk, as writing it to a stream would.
  for (const chunk of fs.readChunks('trace')) chars += chunk.charCodeAt(chunk.length - 1) === 10 ? chunk.length : 0;
  const streamed = lines / (Number(process.hrtime.bigint() - t0) / 1e9);
  const streamedCpu = lines / cpuSeconds(c0);
  t0 = process.hrtime.bigint();
  const text = fs.read('trace');
  const whole = lines / (Number(process.hrtime.bigint() - t0) / 1e9);
  if (text.length !== chars) throw new Error(`read and readChunks differ: ${text.length} vs ${chars} chars`);
  return { lines, streamed, streamedCpu, whole };
}

// Interleaved rounds: record, format, record, format, ... so machine noise hits both alike.
const recRates = [];
const recCpuRates = [];
const streamCpuRates = [];
const streamRates = [];
const wholeRates = [];
let bytesPerRecord = 0;
let lines = 0;
for (let r = 0; r < ROUNDS; r++) {
  const rec = recordRound();
  recRates.push(rec.rate);
  recCpuRates.push(rec.cpuRate);
  bytesPerRecord = rec.bytesPerRecord;
  const fmtRound = formatRound(bytesPerRecord);
  lines = fmtRound.lines;
  streamRates.push(fmtRound.streamed);
  streamCpuRates.push(fmtRound.streamedCpu);
  wholeRates.push(fmtRound.whole);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const best = (xs) => Math.max(...xs);
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const row = (label, xs, note) =>
  console.log(`${label.padEnd(26)}${fmt(median(xs)).padStart(12)}   (median; best ${fmt(best(xs))}; ${note})`);
console.log('@int3/tracer-plugins — p:ev do_sys_open dfd=%di filename=+0(%si):string flags=%dx');
console.log(`${ROUNDS} interleaved rounds`);
row('records/s recorded', recRates, `${fmt(N)} dispatches at a live hit; target ≥ 1,000,000`);
row('  per CPU-second', recCpuRates, 'the same, over process CPU time');
row('trace lines/s (streamed)', streamRates, `${fmt(lines)} lines via readChunks('trace'); target ≥ 500,000`);
row('  per CPU-second', streamCpuRates, 'the same, over process CPU time');
row('trace lines/s (one string)', wholeRates, `${fmt(lines)} lines via read('trace')`);
console.log(
  `${'bytes per record'.padEnd(26)}${bytesPerRecord.toFixed(1).padStart(12)}   (ring-buffer bytes incl. event header / entries)`,
);
