import { AtomicOutput } from '../runtime/atomic-output.js';

/** Where a trace goes as the run produces it. */
export interface TraceSink {
  write(text: string): void;
  /** Flushes and closes (a file); nothing for standard output. */
  close(): void;
}

/** `-o -` names standard output, as `perf record -o -` does. */
export const STDOUT_PATH = '-';

/** A sink writing to `write` (standard output). */
export function stdoutSink(write: (text: string) => void): TraceSink {
  return { write, close: () => {} };
}

/**
 * A sink writing to a file, opened now, before the run, so a path that cannot be written fails at
 * once with a usage error naming it, not after the run; written to a temporary file beside it and
 * renamed over it by `close` (a killed run leaves the old file, never half a trace).
 */
export function fileSink(path: string): TraceSink {
  const out = AtomicOutput.open(path);
  return { write: (text) => out.write(text), close: () => out.commit() };
}
