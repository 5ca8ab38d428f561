import type { BpftraceOutput, BpftraceSink } from './bpftrace-output.js';
import type { BpftraceRuntime } from './bpftrace-runtime.js';
import type { Frame } from './compile-context.js';
import { type CompiledProbe, type CompiledProgram, compileProgram } from './compile-program.js';
import { JsonOutput } from './json-output.js';
import { parseProgram } from './parser.js';
import { renderMap } from './render-map.js';
import { TextOutput } from './text-output.js';

/** `-f text` or `-f json`. */
export type BpftraceFormat = 'text' | 'json';

/**
 * A bpftrace program from source to exit, apart from how its probes are attached: parsed and
 * compiled once at construction (a mistake throws a BpftraceError, see `formatBpftraceError`),
 * then `begin` probes, hits, and at {@link BpftraceProgram.finish} the `end` probes and every map in
 * name order, as bpftrace ends.
 *
 * @see bpftrace src/bpftrace.cpp BPFtrace::run()
 * @example
 * const p = new BpftraceProgram('begin { @x = 1; }', rt, 'text', sink);
 * p.begin();
 * p.finish(); // sink.stdout: "\n\n@x: 1\n"
 */
export class BpftraceProgram {
  readonly compiled: CompiledProgram;
  readonly output: BpftraceOutput;
  #finished = false;

  constructor(
    readonly source: string,
    private readonly rt: BpftraceRuntime,
    format: BpftraceFormat,
    sink: BpftraceSink,
  ) {
    this.output = format === 'json' ? new JsonOutput(sink) : new TextOutput(sink);
    this.compiled = compileProgram(parseProgram(source), rt, this.output);
  }

  /** Whether `exit()` ran (before {@link BpftraceProgram.finish}). */
  get exited(): boolean {
    return this.#exitCalled ?? this.compiled.state.exited;
  }

  #exitCalled: boolean | undefined;

  /** The exit status the program asked for with `exit(code)`: 0 without a code, or when it did not exit. */
  get exitCode(): number {
    return this.compiled.state.exitCode;
  }

  /** The probes other than begin/end (those that need attaching). */
  get attachedProbes(): CompiledProbe[] {
    return this.compiled.probes.filter((p) =>
      p.attachPoints.some((a) => a.provider !== 'begin' && a.provider !== 'end'),
    );
  }

  /** A frame for hits of one attach point: the probe name and function it reports, reused per hit. */
  frame(probe: string, func: string): Frame {
    return { cpu: 0, vars: [], probe, func };
  }

  /** Runs the `begin` probes on CPU 0 and starts `elapsed`. */
  begin(): void {
    this.compiled.state.startNs = this.rt.now(0);
    for (const p of this.compiled.probes) {
      for (const a of p.attachPoints) if (a.provider === 'begin') p.run(this.frame('begin', ''));
    }
  }

  /** Runs the `end` probes (also after `exit()`), ends the output's main loop, and prints every map. */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#exitCalled = this.compiled.state.exited;
    for (const p of this.compiled.probes) {
      for (const a of p.attachPoints) if (a.provider === 'end') p.runAlways(this.frame('end', ''));
    }
    this.compiled.state.exited = true;
    this.output.end();
    const names = [...this.compiled.maps.keys()].sort();
    for (const name of names) this.output.map(renderMap(this.compiled.maps.get(name)!));
  }
}
