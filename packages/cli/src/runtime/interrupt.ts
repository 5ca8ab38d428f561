/** The exit status of a run stopped by Ctrl-C: 128 + SIGINT, as shells report it. */
export const EXIT_INTERRUPTED = 130;

/**
 * Ctrl-C as a request, not a kill, while a run that honours it is under way ({@link during}): the
 * first SIGINT sets {@link requested}, and the run checks it at its slice boundaries, stops the machine
 * there and prints what was recorded. A second SIGINT, or one outside such a run (booting, a short
 * command such as `demo`), exits at once with status 130.
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
  #runs = 0;

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

  /** True while a run that checks {@link requested} is under way. */
  get honoured(): boolean {
    return this.#runs > 0;
  }

  /** Runs `body` as a run that honours Ctrl-C (see the class summary). */
  async during<T>(body: () => Promise<T>): Promise<T> {
    this.#runs++;
    try {
      return await body();
    } finally {
      this.#runs--;
    }
  }

  /** Handles SIGINT on this process; returns the function that stops handling it. */
  listen(): () => void {
    const onSigint = () => {
      if (this.#requested || !this.honoured) process.exit(EXIT_INTERRUPTED);
      this.request();
    };
    process.on('SIGINT', onSigint);
    return () => process.off('SIGINT', onSigint);
  }
}
