import { CliError } from '../cli-error.js';

/** The signals that stop a run: Ctrl-C, `kill`/`timeout`, a closed terminal. */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

/** Signal numbers (x86-64 Linux). @see arch/x86/include/uapi/asm/signal.h */
const SIGNO: Readonly<Record<StopSignal, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** The exit status of a run a signal stopped: 128 + its number, as shells report it (130, 143, 129). */
export function exitStatusOf(signal: StopSignal): number {
  return 128 + SIGNO[signal];
}

/** The exit status of a run stopped by Ctrl-C: 128 + SIGINT, as shells report it. */
export const EXIT_INTERRUPTED = 130;

/**
 * Commands that honour a stop signal: their long work runs in slices (of virtual time, of
 * instructions, of a replay) and stops at the next one, printing what was done; a command whose work
 * is short (`syms`, `disasm`) finishes it. Either way the exit status is 128 + the signal's number.
 */
export const INTERRUPTIBLE_COMMANDS: ReadonlySet<string> = new Set([
  'trace',
  'record',
  'replay',
  'tracefs',
  'bpftrace',
  'call',
  'syms',
  'disasm',
  'demo',
]);

/** How a message names a stop signal: `Ctrl-C` for SIGINT, else the signal's name. */
export function signalName(signal: StopSignal): string {
  return signal === 'SIGINT' ? 'Ctrl-C' : signal;
}

/** The error a command stopped by `signal` ends with: `interrupted (Ctrl-C) <what>`, exit 128 + n. */
export function interruptedBy(signal: StopSignal, what: string): CliError {
  return new CliError(
    'interrupted',
    `interrupted (${signalName(signal)}) ${what}`,
    undefined,
    undefined,
    exitStatusOf(signal),
  );
}

/**
 * Lets the event loop turn once (where signals are delivered) and returns the stop signal that came,
 * if any: the yield point of work that is not a machine run (a guest call, a replay, a demo's steps).
 */
export async function yieldForSignal(interrupt: Interrupt): Promise<StopSignal | undefined> {
  await new Promise((resolve) => setImmediate(resolve));
  return interrupt.signal;
}

const SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * SIGINT, SIGTERM and SIGHUP as a request, not a kill, for the commands that honour it
 * ({@link INTERRUPTIBLE_COMMANDS}): the first one sets {@link requested} and {@link signal}, and their
 * runs check it at slice boundaries, stop the machine there, print what was recorded (`record` writes
 * its log with an end record naming the signal) and exit with 128 + the signal's number. A signal that
 * comes before the command is known (while the CLI loads) is kept as a request too. For the other
 * commands (short ones: `syms`, `disasm`, `demo`, …) the handlers are removed, so a signal takes its
 * default action at once, even inside synchronous work; a second signal exits at once too.
 *
 * @see kernel/signal.c (the default actions the second signal and the short commands keep)
 * @example
 * const interrupt = new Interrupt();
 * const off = interrupt.listen();
 * interrupt.declare(true); // the command honours signals
 * // ... await runWorkloadsSliced(t, workloads, { interrupt }) ...
 * off();
 */
export class Interrupt {
  #signal: StopSignal | undefined;
  /** Whether the running command honours signals; undefined until it is known. */
  #honours: boolean | undefined;
  #off: (() => void) | undefined;

  /** True once a stop signal came (or {@link request} was called). */
  get requested(): boolean {
    return this.#signal !== undefined;
  }

  /** The signal that asked the run to stop. */
  get signal(): StopSignal | undefined {
    return this.#signal;
  }

  /** Asks the run in progress to stop at its next slice boundary. */
  request(signal: StopSignal = 'SIGINT'): void {
    this.#signal ??= signal;
  }

  /** Forgets a request once it was honoured (an interactive shell goes on after a stopped command). */
  clear(): void {
    this.#signal = undefined;
  }

  /**
   * Says whether the command about to run honours signals; one that does not, with a signal already
   * pending, exits now (128 + its number), and otherwise leaves signals their default action.
   */
  declare(honours: boolean): void {
    this.#honours = honours;
    if (honours) return;
    if (this.#signal) process.exit(exitStatusOf(this.#signal));
    this.#off?.();
  }

  /** Handles the stop signals on this process; returns the function that stops handling them. */
  listen(): () => void {
    const handlers = SIGNALS.map((signal) => {
      const handler = () => {
        if (this.#signal !== undefined || this.#honours === false) process.exit(exitStatusOf(this.#signal ?? signal));
        this.request(signal);
      };
      process.on(signal, handler);
      return [signal, handler] as const;
    });
    const off = () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
      if (this.#off === off) this.#off = undefined;
    };
    this.#off = off;
    return off;
  }
}
