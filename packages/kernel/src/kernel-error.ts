/** Error codes of the host kernel: errno names where Linux has one, else a named failure. */
export type KernelErrorCode =
  | 'E2BIG'
  | 'EFAULT'
  | 'ENOMEM'
  | 'EINVAL'
  | 'ENOENT'
  | 'ENOEXEC'
  | 'EBUSY'
  | 'EEXIST'
  | 'ENOSPC'
  | 'BAD_IMAGE'
  | 'BAD_MODULE'
  | 'BAD_LOG'
  | 'PANIC'
  | 'RUNAWAY';

/**
 * A refused or failed kernel operation. Messages say what went wrong and what to do; they are shown to
 * users without a stack trace.
 */
export class KernelError extends Error {
  constructor(
    readonly code: KernelErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'KernelError';
  }
}
