import { Machine, readSampleImage, sampleProgram } from '@int3/kernel';
import { Kprobes } from '@int3/kprobes';
import { TraceFs } from '../../src/tracefs/trace-fs.js';

const image = readSampleImage();

/** A booted sample kernel with kprobes and a tracefs. */
export function bootTraceFs(cpus = 1): { m: Machine; k: Kprobes; fs: TraceFs } {
  const m = Machine.boot({ image, cpus, programs: sampleProgram });
  const k = Kprobes.init(m);
  return { m, k, fs: new TraceFs(m, k) };
}

/** Runs workloads to completion and returns their console output. */
export function run(m: Machine, ...argvs: string[][]): string {
  const start = m.console.length;
  const tasks = argvs.map((argv) => m.spawn(argv));
  const outcome = m.run({ until: () => tasks.every((t) => t.exited) });
  if (outcome.reason !== 'done') throw new Error(`run ended with ${JSON.stringify(outcome)}\n${m.printk.dmesg()}`);
  return m.console
    .slice(start)
    .map((c) => c.text)
    .join('');
}

/** The trace lines of `trace` (header dropped). */
export function traceLines(fs: TraceFs): string[] {
  return fs
    .read('trace')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** The errno name a tracefs call fails with, or 'ok'. */
export function errnoOf(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    throw e;
  }
}

/** The lines of `kprobes/list`. */
export function listedProbes(fs: TraceFs): string[] {
  return fs
    .read('/sys/kernel/debug/kprobes/list')
    .split('\n')
    .filter((l) => l !== '');
}
