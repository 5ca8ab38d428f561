import type { LogEntry, Session } from '@int3/kernel';
import type { Interrupt, StopSignal } from '../runtime/interrupt.js';

/** Host time an input runs before it yields to the event loop (where signals are delivered). */
export const YIELD_EVERY_MS = 100;

/**
 * Applies one input, pausing it every {@link YIELD_EVERY_MS} of host time to yield to the event loop,
 * so a signal stops even one long `input:run` (a crafted log's) within a fraction of a second. Returns
 * the signal that stopped it — the input is then left unfinished — or undefined once it is done. Each
 * stretch runs inside `contain` (the plugin watchdog), when given.
 *
 * @see Session.applyPausable
 */
export async function applyYielding(
  s: Session,
  input: LogEntry,
  interrupt: Interrupt,
  onYield?: () => void,
  contain: <T>(stretch: () => T) => T = (stretch) => stretch(),
): Promise<StopSignal | undefined> {
  let deadline = performance.now() + YIELD_EVERY_MS;
  const overBudget = () => performance.now() >= deadline;
  let done = contain(() => s.applyPausable(input, overBudget));
  while (!done) {
    onYield?.();
    await new Promise((resolve) => setImmediate(resolve));
    if (interrupt.signal) return interrupt.signal;
    deadline = performance.now() + YIELD_EVERY_MS;
    done = contain(() => s.resume(overBudget));
  }
  return undefined;
}
