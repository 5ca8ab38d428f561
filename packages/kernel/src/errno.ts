/**
 * The errno numbers int3 reports, with Linux's values (x86-64, asm-generic). Every package takes its
 * codes from here; each keeps its own closed subset for its error class.
 *
 * @see include/uapi/asm-generic/errno-base.h, include/uapi/asm-generic/errno.h
 */
export const Errno = Object.freeze({
  EPERM: 1,
  ENOENT: 2,
  E2BIG: 7,
  ENOEXEC: 8,
  ENOMEM: 12,
  EACCES: 13,
  EFAULT: 14,
  EBUSY: 16,
  EEXIST: 17,
  ENOTDIR: 20,
  EISDIR: 21,
  EINVAL: 22,
  ENOSPC: 28,
  ERANGE: 34,
  ENOSYS: 38,
  EILSEQ: 84,
  EOPNOTSUPP: 95,
  EADDRNOTAVAIL: 99,
  ECANCELED: 125,
} as const);

/** One of the errno names in {@link Errno}. */
export type ErrnoName = keyof typeof Errno;

/** What `strerror(3)` says for each, as glibc words it (what `echo` and `cat` print after `: `). */
const STRERROR: Readonly<Record<ErrnoName, string>> = Object.freeze({
  EPERM: 'Operation not permitted',
  ENOENT: 'No such file or directory',
  E2BIG: 'Argument list too long',
  ENOEXEC: 'Exec format error',
  ENOMEM: 'Cannot allocate memory',
  EACCES: 'Permission denied',
  EFAULT: 'Bad address',
  EBUSY: 'Device or resource busy',
  EEXIST: 'File exists',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  EINVAL: 'Invalid argument',
  ENOSPC: 'No space left on device',
  ERANGE: 'Numerical result out of range',
  ENOSYS: 'Function not implemented',
  EILSEQ: 'Invalid or incomplete multibyte or wide character',
  EOPNOTSUPP: 'Operation not supported',
  EADDRNOTAVAIL: 'Cannot assign requested address',
  ECANCELED: 'Operation canceled',
});

/**
 * The message `strerror(3)` gives for an errno name, as glibc words it.
 * @see glibc string/_strerror.c, sysdeps/gnu/errlist.h
 * @example
 * strerror('EINVAL'); // 'Invalid argument'
 */
export function strerror(name: ErrnoName): string {
  return STRERROR[name];
}

/**
 * Picks a package's closed set of errno names out of {@link Errno}, with the same numbers.
 * @example
 * const KprobesErrno = errnoSubset(['EINVAL', 'ENOENT']); // { EINVAL: 22, ENOENT: 2 }
 */
export function errnoSubset<const N extends ErrnoName>(names: readonly N[]): Readonly<{ [K in N]: (typeof Errno)[K] }> {
  return Object.freeze(Object.fromEntries(names.map((n) => [n, Errno[n]]))) as { [K in N]: (typeof Errno)[K] };
}
