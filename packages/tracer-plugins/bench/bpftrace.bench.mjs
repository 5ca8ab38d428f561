// @int3/tracer-plugins bench: host cost per hit of bpftrace programs against the same probe as a
// kprobe_events record.
//   record:  p:vr vfs_read                       (tracefs kprobe event, ring-buffer write)
//   count:   kprobe:vfs_read { @[comm] = count(); }
//   hist:    kprobe:vfs_read { @h = hist(arg2); }
// Method: as tracer.bench.mjs — `cat /etc/motd` runs, and at its first real vfs_read hit a kprobe's
// handler calls each handler N times with the live registers: the event's kprobe dispatcher, and the
// compiled bpftrace probe through the bpftrace tracer's kprobe (looked up in kprobes' debugfs list by
// address and handler), so each iteration is one hit's host cost without the int3 trap and
// single-step kprobes itself adds. Rounds interleave the three; medians are reported.
// Runs on dist/ (build first). Usage: node bench/bpftrace.bench.mjs [hits]
import { Machine, readSampleImage, sampleProgram } from '@int3/kernel';
import { Kprobes } from '@int3/kprobes';
import { BUILTIN_TRACER_PLUGINS, TraceFs, TracerHost } from '../dist/index.js';

const N = Number(process.argv[2] ?? 1_000_000);
const ROUNDS = 5;
const image = readSampleImage();

/** Boots, arms the record event and the bpftrace program, and times N calls of each at a real hit. */
async function round(program) {
  const m = Machine.boot({ image, cpus: 1, programs: sampleProgram });
  const k = Kprobes.init(m);
  const fs = new TraceFs(m, k);
  fs.write('kprobe_events', 'p:vr vfs_read\n');
  fs.write('events/kprobes/vr/enable', '1');
  const record = fs.kprobeEvents.probes[0].kp;
  // The bpftrace tracer registers its kprobe through kprobes' public API: catch it on the way in.
  const registered = [];
  const register = k.registerKprobe.bind(k);
  k.registerKprobe = (p) => {
    registered.push(p);
    register(p);
  };
  const host = new TracerHost(fs);
  for (const p of BUILTIN_TRACER_PLUGINS) await host.install(p);
  host.start('bpftrace', [program]);
  k.registerKprobe = register;
  const bp = registered.find((p) => p.symbolName === 'vfs_read');
  if (!bp) throw new Error('bpftrace registered no kprobe on vfs_read');
  const result = {};
  let done = false;
  k.registerKprobe({
    symbolName: 'vfs_read',
    preHandler: (_p, regs) => {
      if (done) return 0;
      done = true;
      for (const [name, kp] of [
        ['record', record],
        ['bpftrace', bp],
      ]) {
        for (let i = 0; i < 20_000; i++) kp.preHandler(kp, regs); // warm-up
        const c0 = process.cpuUsage();
        for (let i = 0; i < N; i++) kp.preHandler(kp, regs);
        const d = process.cpuUsage(c0);
        result[name] = ((d.user + d.system) * 1e3) / N; // ns per hit of CPU time
      }
      return 0;
    },
  });
  const t = m.spawn(['cat', '/etc/motd']);
  m.run({ until: () => t.exited });
  if (!done) throw new Error('vfs_read was never hit');
  host.stop();
  return result;
}

const programs = {
  count: 'kprobe:vfs_read { @[comm] = count(); }',
  hist: 'kprobe:vfs_read { @h = hist(arg2); }',
};
const times = { record: [], count: [], hist: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, prog] of Object.entries(programs)) {
    const res = await round(prog);
    times.record.push(res.record);
    times[name].push(res.bpftrace);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rec = median(times.record);
console.log('@int3/tracer-plugins — bpftrace per-hit host cost vs a kprobe_events record (p:vr vfs_read)');
console.log(`${ROUNDS} interleaved rounds of ${N.toLocaleString('en-US')} hits, CPU ns per hit (median)`);
console.log(`${'kprobe_events record'.padEnd(40)}${rec.toFixed(1).padStart(8)} ns`);
for (const [name, prog] of Object.entries(programs)) {
  const t = median(times[name]);
  console.log(`${prog.padEnd(40)}${t.toFixed(1).padStart(8)} ns   ${(t / rec).toFixed(2)}× a record (target ≤ 2×)`);
}
