import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** How many bytes a file may have, in words for messages (`16 MiB`). */
function sizeWords(bytes: number): string {
  if (bytes >= 2 ** 30) return `${Math.floor(bytes / 2 ** 30)} GiB`;
  return bytes >= 2 ** 20 ? `${Math.floor(bytes / 2 ** 20)} MiB` : `${bytes} bytes`;
}

/**
 * Reads a whole input file, in bounded time and memory: only a regular file (a FIFO, a device such as
 * `/dev/zero` or a directory is refused without reading: a FIFO is opened non-blocking, so no writer
 * is waited for), of at most `limit` bytes. `path` 0 reads standard input, which may be a pipe, up to
 * `limit`. Failures are turned into the caller's error by `fail(reason)`.
 *
 * @example
 * const bytes = readBoundedFile('run.int3log', 2 ** 31 - 1, (why) => new CliError('usage', `cannot read: ${why}`));
 */
export function readBoundedFile(path: string | 0, limit: number, fail: (reason: string) => Error): Uint8Array {
  let fd: number;
  try {
    fd = path === 0 ? 0 : openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw fail(code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message);
  }
  try {
    const stat = fstatSync(fd);
    if (path !== 0 && !stat.isFile()) {
      const kind = stat.isDirectory()
        ? 'a directory'
        : stat.isFIFO()
          ? 'a FIFO'
          : stat.isSocket()
            ? 'a socket'
            : 'a device';
      throw fail(`not a regular file (it is ${kind})`);
    }
    if (stat.isFile() && stat.size > limit)
      throw fail(`too large (${stat.size} bytes; the limit is ${sizeWords(limit)})`);
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const chunk = new Uint8Array(Math.min(1 << 20, limit + 1 - total));
      let n: number;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        // A non-blocking stdin with nothing yet: wait for it as a blocking read would.
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
          continue;
        }
        throw fail((error as Error).message);
      }
      if (n === 0) break;
      total += n;
      if (total > limit) throw fail(`too large (more than ${sizeWords(limit)})`);
      chunks.push(chunk.subarray(0, n));
    }
    const out = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  } finally {
    if (path !== 0) closeSync(fd);
  }
}
