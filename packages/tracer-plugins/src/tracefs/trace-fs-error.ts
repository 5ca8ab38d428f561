import { errnoSubset } from '@int3/kernel';

/**
 * The errno names a tracefs operation fails with, as the kernel returns them negated (numbers from the
 * kernel's one errno table).
 */
export const TraceFsErrno = errnoSubset([
  'ENOENT',
  'E2BIG',
  'ENOMEM',
  'EACCES',
  'EBUSY',
  'EEXIST',
  'ENOTDIR',
  'EISDIR',
  'EINVAL',
  'EILSEQ',
  'EOPNOTSUPP',
  'EADDRNOTAVAIL',
]);

/** One of the errno names in {@link TraceFsErrno}. */
export type TraceFsErrnoName = keyof typeof TraceFsErrno;

/**
 * A failed tracefs read or write, carrying the errno a `write(2)` or `open(2)` would return. This is
 * user input going wrong (a bad `kprobe_events` line, removing a busy event), not a programming error.
 *
 * @see kernel/trace/trace_kprobe.c, kernel/trace/trace_events.c (the file operations' error returns)
 * @example
 * try { fs.write('kprobe_events', 'p nosuchsym'); } catch (e) { if (e instanceof TraceFsError) e.code; } // 'ENOENT'
 */
export class TraceFsError extends Error {
  /** The positive errno number. */
  readonly errno: number;

  constructor(
    readonly code: TraceFsErrnoName,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'TraceFsError';
    this.errno = TraceFsErrno[code];
  }
}
