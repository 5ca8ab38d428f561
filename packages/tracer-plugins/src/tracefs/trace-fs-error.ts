/** The errno names a tracefs operation fails with, as the kernel returns them negated. */
export const TraceFsErrno = Object.freeze({
  ENOENT: 2,
  E2BIG: 7,
  ENOMEM: 12,
  EACCES: 13,
  EBUSY: 16,
  EEXIST: 17,
  ENOTDIR: 20,
  EISDIR: 21,
  EINVAL: 22,
  EILSEQ: 84,
  EOPNOTSUPP: 95,
  EADDRNOTAVAIL: 99,
} as const);

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
