import { Machine, readSampleImage, sampleProgram } from '@int3/kernel';
import { describe, expect, it } from 'vitest';
import type { Kprobe } from '../src/core/kprobe.js';
import { Kprobes } from '../src/kprobes.js';
import { bootWithKprobes, boundaries } from './support/machine.js';

const WORKLOADS = [
  ['cat', '/etc/motd'],
  ['dd', '2'],
  ['fork', '3'],
  ['cat', '/proc/version'],
  ['open', '/etc/hostname'],
  ['mkdir', '/tmp/s'],
];
const PROBED = ['vfs_read', 'do_syscall_64', 'kmalloc', 'sys_mkdir'];
/** Toggle every probe's enabled state every this many rounds. */
const TOGGLE_EVERY = Number(process.env.INT3_STRESS_TOGGLE ?? 3);

/** Runs the workloads; `stop` is checked after every instruction, `onStop` runs where it held. */
function runAll(m: Machine, stop?: () => boolean, onStop?: () => void) {
  const tasks = WORKLOADS.map((argv) => m.spawn(argv));
  const until = () => tasks.every((t) => t.exited);
  for (;;) {
    const r = m.run({ until, stopAfter: stop });
    if (r.reason !== 'stopped') {
      expect(r).toEqual({ reason: 'done' });
      break;
    }
    onStop?.();
  }
  return {
    console: m.console.map((c) => `${c.at} cpu${c.cpu} pid${c.pid} ${c.text}`),
    exits: tasks.map((t) => t.exitCode),
  };
}

describe('jump optimization under load (text_poke_bp across 4 CPUs)', () => {
  it('should never let a CPU run a torn instruction while probes are optimized and unoptimized repeatedly', () => {
    const plain = runAll(bootWithKprobes(4, 300).m);

    const m = Machine.boot({ image: readSampleImage(), cpus: 4, quantum: 300, programs: sampleProgram });
    // This hook runs at each round boundary before the optimizer's: what it enables is patched at once.
    let round = 0;
    m.kernel.onRoundBoundary(() => toggle(++round));
    const k = Kprobes.init(m);
    k.optimization.delay = 0;
    const regions = PROBED.map((sym) => {
      const b = boundaries(m, sym);
      return {
        sym,
        start: b[0].address,
        bounds: new Set(b.map((x) => x.address)),
        bytes: m.space.read(b[0].address, 24),
      };
    });
    const probes: Kprobe[] = PROBED.map((symbolName) => ({ symbolName, preHandler: () => 0 }));
    for (const p of probes) k.registerKprobe(p);
    const sizes = probes.map((p) => k.optimization.detour(p.addr!)!.size);
    let torn: string | undefined;
    let interior = 0;
    m.kernel.stepHook = (cpu, rip) => {
      for (let i = 0; i < regions.length; i++) {
        const r = regions[i];
        if (rip <= r.start || rip >= r.start + BigInt(sizes[i])) continue;
        interior++;
        // Inside a region: only at an original boundary, and only while the original bytes are there.
        const now = m.space.read(r.start + 1n, sizes[i] - 1);
        const intact = now.every((b, j) => b === r.bytes[j + 1]);
        if (!r.bounds.has(rip) || !intact)
          torn ??= `cpu${cpu} at ${m.kallsyms.format(rip)} (bytes ${Buffer.from(now).toString('hex')})`;
      }
    };
    const paths = new Map<string, number>();
    let pokes = 0;
    k.events$.subscribe((e) => {
      if (e.type === 'kprobe:hit') paths.set(e.path, (paths.get(e.path) ?? 0) + 1);
      if (e.type === 'kprobe:text-poke-bp') pokes++;
    });
    const disabled = (p: Kprobe) => ((p.flags ?? 0) & 2) !== 0;
    function toggle(n: number) {
      if (n % TOGGLE_EVERY !== 0) return;
      const p = probes[(n / TOGGLE_EVERY) % probes.length];
      if (disabled(p)) k.enableKprobe(p);
      else k.disableKprobe(p);
    }
    // A CPU stopped inside a disabled probe's region: enable it and run the optimizer there and then,
    // which must leave the probe queued (patching now would tear that CPU's next instruction).
    let stoppedInside = 0;
    const insideDisabled = () =>
      regions.findIndex(
        (r, i) =>
          disabled(probes[i]) &&
          m.cpus.some((c, id) => m.sched.current[id] && c.rip > r.start && c.rip < r.start + BigInt(sizes[i])),
      );
    const onStop = () => {
      stoppedInside++;
      k.enableKprobe(probes[insideDisabled()]);
      k.optimization.runNow();
    };
    const probed = runAll(m, () => insideDisabled() >= 0, onStop);
    m.kernel.stepHook = undefined;
    expect(torn).toBeUndefined();
    expect(probed).toEqual(plain);
    expect(paths.get('optimized') ?? 0).toBeGreaterThan(0);
    expect(paths.get('detour') ?? 0).toBeGreaterThan(0);
    expect(pokes).toBeGreaterThan(20);
    expect(interior).toBeGreaterThan(0);
    expect(stoppedInside).toBeGreaterThan(0);
    // Quiesce: everything enabled again and optimized, then everything out: the original bytes exactly.
    for (const p of probes) if (disabled(p)) k.enableKprobe(p);
    k.optimization.runNow();
    for (const p of probes) k.unregisterKprobe(p);
    for (const r of regions) expect(m.space.read(r.start, 24)).toEqual(r.bytes);
  });
});
