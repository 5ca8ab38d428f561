import { KernelError } from '../kernel-error.js';

/** The size of a workload's user stack, where its argv is copied. */
export const USER_STACK_SIZE = 128 * 1024;

/**
 * The most bytes a workload's argument strings (with their NULs) and `argv[]` pointers may take: a
 * quarter of its stack, the share Linux's execve allows of the stack limit (`rlim_stack / 4`).
 *
 * @see fs/exec.c bprm_stack_limits()
 */
export const ARG_MAX = USER_STACK_SIZE / 4;

/**
 * Refuses an argv that does not fit the guest's limit with `E2BIG` ("Argument list too long"), as
 * execve does, before anything is copied to the new stack.
 *
 * @see fs/exec.c bprm_stack_limits(), copy_strings()
 * @example
 * checkExecArgs(['cat', '/etc/motd']); // fine
 * checkExecArgs(['cat', 'x'.repeat(1 << 20)]); // throws KernelError E2BIG
 */
export function checkExecArgs(argv: readonly string[]): void {
  // argv[] and its NULL, then envp's NULL (the environment is empty).
  let bytes = (argv.length + 2) * 8;
  const encoder = new TextEncoder();
  for (const arg of argv) {
    // Counting UTF-16 units first keeps a huge argument from being encoded at all.
    bytes += arg.length > ARG_MAX ? arg.length : encoder.encode(arg).length + 1;
    if (bytes > ARG_MAX) {
      throw new KernelError(
        'E2BIG',
        `Argument list too long: ${argv.length} arguments need more than ${ARG_MAX} bytes (a quarter of the ${USER_STACK_SIZE / 1024} KiB user stack, as execve allows)`,
      );
    }
  }
}
