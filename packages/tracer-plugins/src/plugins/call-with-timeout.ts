import { createContext, Script } from 'node:vm';

const sandbox = createContext({ body: undefined as (() => unknown) | undefined });
const script = new Script('body()', { filename: 'int3-plugin-watchdog' });

/** Thrown by {@link callWithTimeout} when the call did not return in time; the call was terminated. */
export class CallTimeout extends Error {
  override readonly name = 'CallTimeout';
}

/**
 * Runs `body` synchronously and returns its result, but terminates it if it has not returned after
 * `ms` milliseconds of wall time, even inside an endless loop: node:vm's `timeout`, whose watchdog
 * thread terminates JavaScript execution on this thread — code no `try` can catch and no `finally`
 * outlives — and then throws {@link CallTimeout} here. Whatever `body` was doing is left half-done:
 * the caller must not trust that state again. An exception `body` throws passes through unchanged.
 * Each call starts a watchdog thread (about 0.3 ms), so call it per slice of work, not per event.
 *
 * @see https://nodejs.org/api/vm.html#scriptruninthiscontextoptions (timeout)
 * @example
 * callWithTimeout(() => machine.run({ until }), 10_000);
 */
export function callWithTimeout<T>(body: () => T, ms: number): T {
  sandbox.body = body;
  try {
    return script.runInContext(sandbox, { timeout: ms }) as T;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new CallTimeout(`did not return within ${ms} ms`, { cause: error });
    }
    throw error;
  } finally {
    sandbox.body = undefined;
  }
}
