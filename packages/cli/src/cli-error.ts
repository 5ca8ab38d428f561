/**
 * Why a command stopped: a bad command line or input file (exit 2), a run that failed (exit 1), or a
 * run Ctrl-C stopped (exit 130, after printing what was recorded).
 */
export type CliErrorKind = 'usage' | 'failure' | 'interrupted';

/**
 * The one error type commands throw for expected outcomes; `bin.ts` prints its message as a single line
 * on stderr (a usage error adds a hint naming the command's `--help`) and exits with {@link exitCode}.
 *
 * @example
 * throw new CliError('usage', `bad argument 'zz': expected an integer, str:TEXT or buf:N`);
 */
export class CliError extends Error {
  constructor(
    readonly kind: CliErrorKind,
    message: string,
    /** The command whose `--help` a usage error points at, e.g. 'call'. */
    readonly command?: string,
    /** Lines printed after the message (e.g. the kernel's error_log with its caret), without a final newline. */
    readonly detail?: string,
    /** The exit status of an interrupted run: 128 + the signal's number (130 when not given). */
    readonly exitStatus?: number,
  ) {
    super(message);
    this.name = 'CliError';
  }

  /** 2 for a usage error, 1 for a failed run, 128 + the signal for an interrupted one (130, 143, 129). */
  get exitCode(): number {
    return this.kind === 'usage' ? 2 : this.kind === 'interrupted' ? (this.exitStatus ?? 130) : 1;
  }
}
