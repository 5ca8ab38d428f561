import type { TracerContext } from './tracer-context.js';

/** What a tracer hands back when asked: text for a terminal, or JSON for a file or another tool. */
export interface TracerReport {
  /** `text` prints as is; `json` is a JSON document (e.g. Chrome Trace Event format). */
  readonly format: 'text' | 'json';
  readonly text: string;
}

/**
 * What a tracer that prints as it runs (bpftrace's `printf`, a `perf trace`) printed since it was last
 * drained, and whether it asks the run to end: the host's caller drains it between slices of a run and
 * writes it out as it comes, so a long run shows its lines and an interrupted one loses none.
 *
 * @see bpftrace src/output/output.h (printf output is written as it arrives, maps at exit)
 */
export interface TracerOutput {
  /** The tool's own output (its data), in order. */
  readonly stdout: string;
  /** Its diagnostics (bpftrace's `Attached N probes`). */
  readonly stderr: string;
  /** Set once the tool asked the run to end (bpftrace's `exit(code)`): the exit status it asks for. */
  readonly exit?: number;
}

/**
 * A tracing tool run on a machine: it registers its probes in `start`, removes them in `stop`, and
 * renders what it saw in `report` (callable before or after `stop`). A plugin binds one instance per
 * name it `provides`.
 *
 * @see tools/perf/builtin-trace.c, bcc's tools/*.py — the shape of a tracing tool, modelled loosely
 * @example
 * tracer.start({ ...ctx, args: ['vfs_read'] });
 * machine.run();
 * tracer.stop();
 * console.log(tracer.report().text);
 */
export interface Tracer {
  /** The name it is started by (one of its plugin's `provides`). */
  readonly name: string;
  /** One line saying what it does and how it is called, for `int3 tracers`. */
  readonly description?: string;
  /** Registers probes; `ctx.args` are the tool's arguments (e.g. function names). */
  start(ctx: TracerContext): void;
  /** Unregisters every probe it registered; safe to call twice or after a failed start. */
  stop(): void;
  report(): TracerReport;
  /**
   * For a tool that prints as it runs: what it printed since the last drain (then forgotten, so a long
   * run keeps nothing it already handed out). `report` gives what was not drained. Optional: a tracer
   * without it prints only its report.
   */
  drain?(): TracerOutput;
}
