import { closeSync, openSync, writeSync } from 'node:fs';
import { CliError } from '../cli-error.js';

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
 * A sink writing to a file, opened (created or truncated) now, before the run, so a path that cannot
 * be written fails at once with a usage error naming it, not after the run.
 */
export function fileSink(path: string): TraceSink {
  let fd: number;
  try {
    fd = openSync(path, 'w');
  } catch (error) {
    throw new CliError('usage', `cannot write '${path}': ${(error as Error).message}`);
  }
  return {
    write: (text) => {
      writeSync(fd, text);
    },
    close: () => closeSync(fd),
  };
}
