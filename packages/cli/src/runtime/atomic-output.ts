import { closeSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { LogSink } from '@int3/kernel';
import { CliError } from '../cli-error.js';

/** Bytes kept in memory before they go to the file. */
const BUFFER_CHARS = 1 << 20;

/** Temporary files not yet committed: removed if the process exits first. */
const pending = new Set<AtomicOutput>();
process.on('exit', () => {
  for (const out of pending) out.abort();
});

/**
 * An output file written atomically: opened (so its directory is checked) before a run, written as
 * the run goes, in a temporary file beside it (`.<name>.<pid>.tmp`), and renamed over `path` only by
 * {@link commit} — a failed or killed run leaves the old file, never half a new one. A path that
 * exists and is no regular file (`/dev/null`, a FIFO) is written in place.
 *
 * @example
 * const out = AtomicOutput.open('run.int3log', 'record'); // fails now, before a long run
 * out.write(text);
 * out.commit();
 */
export class AtomicOutput implements LogSink {
  #fd: number | undefined;
  #buffer: string[] = [];
  #chars = 0;

  private constructor(
    readonly path: string,
    private readonly temp: string | undefined,
    fd: number,
  ) {
    this.#fd = fd;
    pending.add(this);
  }

  /** Opens `path` for writing; a path that cannot be written is a usage error naming it, now. */
  static open(path: string, command?: string): AtomicOutput {
    const fail = (why: string) => new CliError('usage', `cannot write '${path}': ${why}`, command);
    let special = false;
    try {
      const st = statSync(path);
      if (st.isDirectory()) throw fail('it is a directory');
      special = !st.isFile();
    } catch (error) {
      if (error instanceof CliError) throw error;
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fail((error as Error).message);
    }
    const temp = special ? undefined : join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
    try {
      return new AtomicOutput(path, temp, openSync(temp ?? path, 'w'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT'
          ? `no such directory '${dirname(path)}'`
          : code === 'EACCES'
            ? `permission denied in '${dirname(path)}'`
            : code === 'ENOTDIR'
              ? `'${dirname(path)}' is not a directory`
              : (error as Error).message;
      throw fail(why);
    }
  }

  /** Appends text (buffered). */
  write(text: string): void {
    this.#buffer.push(text);
    this.#chars += text.length;
    if (this.#chars >= BUFFER_CHARS) this.#flush();
  }

  /** Writes what is buffered and puts the file in place of `path`. */
  commit(): void {
    if (this.#fd === undefined) return;
    this.#flush();
    closeSync(this.#fd);
    this.#fd = undefined;
    pending.delete(this);
    if (this.temp !== undefined) renameSync(this.temp, this.path);
  }

  /** Drops the file being written (`path` is left as it was). */
  abort(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
    pending.delete(this);
    if (this.temp !== undefined) {
      try {
        unlinkSync(this.temp);
      } catch {
        // already gone
      }
    }
  }

  #flush(): void {
    if (this.#fd === undefined || this.#chars === 0) return;
    const chunk = Buffer.from(this.#buffer.join(''));
    this.#buffer = [];
    this.#chars = 0;
    try {
      for (let at = 0; at < chunk.length; ) at += writeSync(this.#fd, chunk, at);
    } catch (error) {
      throw new CliError('failure', `cannot write '${this.path}': ${(error as Error).message}`);
    }
  }
}
