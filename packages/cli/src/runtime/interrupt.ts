/** The exit status of a run stopped by Ctrl-C: 128 + SIGINT, as shells report it. */
export const EXIT_INTERRUPTED = 130;

/** Commands whose runs stop at Ctrl-C and still print what was recorded (in slices of virtual time). */
export const INTERRUPTIBLE_COMMANDS: ReadonlySet<string> = new Set(['trace', 'record', 'replay', 'tracefs']);

/**
 * Ctrl-C as a request, not a kill, for the commands that honour it ({@link INTERRUPTIBLE_COMMANDS}):
 * the first SIGINT sets {@link requested}, and their runs check it at slice boundaries, stop the
 * machine there and print what was recorded. A SIGINT that comes before the command is known (while
 * the CLI loads) is kept as a request too, so a run that starts later stops after its first slice.
 * For the other commands (short ones such as `demo`), and at a second SIGINT, the process exits at
 * once with status 130.
 *
 * @see kernel/signal.c (SIGINT's default action is what the second Ctrl-C keeps)
 * @example
 * const interrupt = new Interrupt();
 * const off = interrupt.listen();
 * interrupt.declare(true); // the command honours Ctrl-C
 * // ... await runWorkloadsSliced(t, workloads, { interrupt }) ...
 * off();
 */
export class Interrupt {
  #requested = false;
  /** Whether the running command honours Ctrl-C; undefined until it is known. */
  #honours: boolean | undefined;

  /** True once Ctrl-C was pressed (or {@link request} called). */
  get requested(): boolean {
    return this.#requested;
  }

  /** Asks the run in progress to stop at its next slice boundary. */
  request(): void {
    this.#requested = true;
  }

  /** Forgets a request once it was honoured (an interactive shell goes on after a stopped command). */
  clear(): void {
    this.#requested = false;
  }

  /**
   * Says whether the command about to run honours Ctrl-C; one that does not, with a Ctrl-C already
   * pending, exits now (status 130).
   */
  declare(honours: boolean): void {
    this.#honours = honours;
    if (!honours && this.#requested) process.exit(EXIT_INTERRUPTED);
  }

  /** Handles SIGINT on this process; returns the function that stops handling it. */
  listen(): () => void {
    const onSigint = () => {
      if (this.#requested || this.#honours === false) process.exit(EXIT_INTERRUPTED);
      this.request();
    };
    process.on('SIGINT', onSigint);
    return () => process.off('SIGINT', onSigint);
  }
}
