import { Machine, readSampleImage, sampleProgram } from '@int3/kernel';
import { Kprobes } from '@int3/kprobes';
import type { PluginError } from '../plugins/plugin-error.js';
import type { TracerReport } from '../plugins/tracer.js';
import { TracerHost } from '../plugins/tracer-host.js';
import type { TracerPlugin } from '../plugins/tracer-plugin.js';
import { TraceFs } from '../tracefs/trace-fs.js';

/** What {@link runTracer} runs: a plugin (in hand, or a path or package to load) and its tracer. */
export interface RunTracerOptions {
  /** The plugin object (`{ manifest, module }`), or a specifier loaded as `--plugin` would be. */
  readonly plugin: TracerPlugin | string;
  /** The tracer to start (default: the plugin's first). */
  readonly tracer?: string;
  readonly args?: readonly string[];
  /** Workloads to run together, as argv (default `[['hello']]`); see the kernel's WORKLOADS. */
  readonly run?: readonly (readonly string[])[];
  /** kprobe_events lines to define and enable too (their trace is returned). */
  readonly events?: readonly string[];
  readonly cpus?: number;
  /** Where a specifier is resolved from (default: the current directory). */
  readonly fromDir?: string;
}

/** What a tracer did on the sample kernel. */
export interface RunTracerResult {
  readonly report: TracerReport;
  /** The plugin failures recorded (a handler that threw, …): empty when all went well. */
  readonly errors: readonly PluginError[];
  /** The `trace` file's lines of the `events` (no header). */
  readonly trace: readonly string[];
  /** What the workloads printed. */
  readonly console: string;
}

/**
 * A test bench for tracer plugins: boots the sample kernel with kprobes and a tracefs, installs (or
 * loads) the plugin under the same guard int3 runs it with, starts the tracer with its arguments,
 * runs the workloads to completion, stops the tracer and returns its report.
 *
 * @example
 * const { report, errors } = await runTracer({ plugin: { manifest, module }, run: [['cat', '/etc/motd']] });
 * expect(errors).toEqual([]);
 * expect(report.text).toMatch(/open/);
 */
export async function runTracer(options: RunTracerOptions): Promise<RunTracerResult> {
  const m = Machine.boot({ image: readSampleImage(), cpus: options.cpus ?? 1, programs: sampleProgram });
  const fs = new TraceFs(m, Kprobes.init(m));
  const host = new TracerHost(fs);
  const manifest =
    typeof options.plugin === 'string'
      ? await host.load(options.plugin, options.fromDir ?? process.cwd())
      : await host.install(options.plugin);
  const tracer = options.tracer ?? manifest.provides[0];
  for (const line of options.events ?? []) fs.write('kprobe_events', line, { append: true });
  if ((options.events ?? []).length > 0) fs.write('events/enable', '1');
  host.start(tracer, options.args ?? []);
  const start = m.consoleLog.total;
  const tasks = (options.run ?? [['hello']]).map((argv) => m.spawn([...argv]));
  const outcome = m.run({ until: () => tasks.every((t) => t.exited) });
  if (outcome.reason !== 'done') throw new Error(`the run ended with ${outcome.reason}`);
  host.stop(tracer);
  const trace = fs
    .read('trace')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));
  const console = m.consoleLog
    .since(start)
    .map((c) => c.text)
    .join('');
  return { report: host.report(tracer), errors: [...host.errors], trace, console };
}
