import type { Value } from './bpf-map.js';
import type { BpfType } from './bpftrace-type.js';
import type { RenderedMap } from './render-map.js';

/** Where a program's output goes: stdout (its data) and stderr (diagnostics, `Attached N probes`). */
export interface BpftraceSink {
  stdout(text: string): void;
  stderr(text: string): void;
}

/**
 * One of bpftrace's output formats (`-f text`, `-f json`): what a program prints as it runs and at
 * exit, each kind of message formatted its way.
 *
 * @see bpftrace src/output/output.h Output
 */
export interface BpftraceOutput {
  attachedProbes(n: number): void;
  printf(text: string): void;
  /** `print(value)` of a non-map value. */
  value(v: Value, t: BpfType): void;
  /** `print(@m)` and every map at exit. */
  map(m: RenderedMap): void;
  time(text: string): void;
  /** The end of the main loop, before the maps are printed at exit. */
  end(): void;
}
