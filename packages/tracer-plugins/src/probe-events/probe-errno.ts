import { errnoSubset } from '@int3/kernel';

/**
 * The errno values a `kprobe_events` write can fail with, as the kernel returns them negated (numbers
 * from the kernel's one errno table).
 *
 * @see include/uapi/asm-generic/errno-base.h
 * @see include/uapi/asm-generic/errno.h
 */
export const ProbeErrno = errnoSubset([
  'ENOENT',
  'E2BIG',
  'ENOMEM',
  'EBUSY',
  'EEXIST',
  'EINVAL',
  'EILSEQ',
  'EOPNOTSUPP',
  'EADDRNOTAVAIL',
  'ECANCELED',
]);

/** One of the errno names in {@link ProbeErrno}. */
export type ProbeErrnoName = keyof typeof ProbeErrno;
