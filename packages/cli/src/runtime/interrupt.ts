/** The exit status of a run stopped by Ctrl-C: 128 + SIGINT, as shells report it. */
export const EXIT_INTERRUPTED = 130;

/**
 * Ctrl-C as a request, not a kill: the first SIGINT sets {@link requested}, and long runs check it at
 * their slice boundaries, stop the machine there and print what was recorded. A second SIGINT exits at
 * once (for a command stuck outside a run).
 *
 * @see kernel/signal.c (SIGINT's default action is what the second Ctrl-C keeps)
 * @example
 * const interrupt = new Interrupt();
 * const off = interrupt.listen();
 * // ... await runWorkloadsSliced(t, workloads, { interrupt }) ...
 * off();
 */
export class Interrupt {
  #requested = false;

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

  /** Handles SIGINT on this process; returns the function that stops handling it. */
  listen(): () => void {
    const onSigint = () => {
      if (this.#requested) process.exit(EXIT_INTERRUPTED);
      this.request();
    };
    process.on('SIGINT', onSigint);
    return () => process.off('SIGINT', onSigint);
  }
}
