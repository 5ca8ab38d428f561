/** The errno names kprobes reports, as `register_kprobe()` and friends return them negated. */
export const Errno = {
  ENOENT: 2,
  ENOMEM: 12,
  EBUSY: 16,
  EEXIST: 17,
  EINVAL: 22,
  E2BIG: 7,
  ENOSYS: 38,
  EILSEQ: 84,
  EOPNOTSUPP: 95,
} as const;

/** One of the errno names in {@link Errno}. */
export type ErrnoName = keyof typeof Errno;

/**
 * A refused kprobes operation, carrying the errno the kernel would return.
 *
 * @see kernel/kprobes.c register_kprobe() error paths
 */
export class KprobeError extends Error {
  readonly errno: number;

  constructor(
    readonly code: ErrnoName,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'KprobeError';
    this.errno = Errno[code];
  }
}
