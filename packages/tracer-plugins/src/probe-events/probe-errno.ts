/**
 * The errno values a `kprobe_events` write can fail with, as the kernel returns them negated.
 *
 * @see include/uapi/asm-generic/errno-base.h
 * @see include/uapi/asm-generic/errno.h
 */
export const ProbeErrno = Object.freeze({
  ENOENT: 2,
  E2BIG: 7,
  ENOMEM: 12,
  EBUSY: 16,
  EEXIST: 17,
  EINVAL: 22,
  EILSEQ: 84,
  EOPNOTSUPP: 95,
  EADDRNOTAVAIL: 99,
  ECANCELED: 125,
} as const);

/** One of the errno names in {@link ProbeErrno}. */
export type ProbeErrnoName = keyof typeof ProbeErrno;
