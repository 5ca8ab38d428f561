import { errnoSubset } from '@int3/kernel';

/**
 * The errno names kprobes reports, as `register_kprobe()` and friends return them negated (numbers
 * from the kernel's one errno table).
 */
export const Errno = errnoSubset([
  'ENOENT',
  'ENOMEM',
  'EBUSY',
  'EEXIST',
  'EINVAL',
  'E2BIG',
  'ENOSYS',
  'EILSEQ',
  'EOPNOTSUPP',
]);

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
