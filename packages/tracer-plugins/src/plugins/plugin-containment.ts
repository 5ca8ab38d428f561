import { describeThrown } from './plugin-error.js';

/** What {@link containPlugins} needs from the tracer host. */
export interface AsyncFailureSink {
  /** True when the exception (or call) comes from a loaded plugin's code. */
  attribute(error: unknown): unknown;
  /** Records an escaped exception as its plugin's failure; false when no plugin can be named. */
  failAsync(error: unknown, what?: string): boolean;
}

/** What a plugin's `process.exit()` throws instead of ending the process. */
export class PluginExitRefused extends Error {
  override readonly name = 'PluginExitRefused';

  constructor(readonly code: unknown) {
    super(`it called process.exit(${code === undefined ? '' : describeThrown(code)}), which int3 refuses`);
  }
}

/**
 * Contains what a plugin does outside the host's calls, for as long as the returned function is not
 * called: an exception that escapes its timer, promise or RxJS subscription (which Node would end
 * the process with, printing a stack trace) becomes that plugin's recorded failure; one int3 cannot
 * attribute to a plugin goes to `unattributed`. `process.exit()` called from a plugin's code throws
 * {@link PluginExitRefused} there instead of exiting — inside a probe handler or `start()` the guard
 * turns that into the tracer's failure; int3's own calls of `process.exit` still exit.
 *
 * @see kernel/panic.c oops_enter() — a fault in a module is reported and the kernel carries on
 * @example
 * const release = containPlugins(host, (e) => { throw e; });
 * try { await run(); } finally { release(); }
 */
export function containPlugins(sink: AsyncFailureSink, unattributed: (error: unknown) => void): () => void {
  const exit = process.exit;
  const onException = (error: unknown) => {
    if (!sink.failAsync(error)) unattributed(error);
  };
  const onRejection = (reason: unknown) => {
    if (!sink.failAsync(reason, 'a promise of it was rejected and nothing caught it')) unattributed(reason);
  };
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  const guardedExit = function (this: unknown, ...code: [(number | string | null)?]) {
    if (sink.attribute(new Error('process.exit')) !== undefined) throw new PluginExitRefused(code[0]);
    // Node reads `process.exit(undefined)` as "exit code undefined" (0), not as no argument.
    return exit.apply(process, code as [number?]);
  } as typeof process.exit;
  process.exit = guardedExit;
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
    if (process.exit === guardedExit) process.exit = exit;
  };
}
