/** What {@link untilAllExited} reads of a task. */
export interface ExitState {
  readonly exited: boolean;
}

/**
 * The stop condition of `input:run` with `pids`: true once every task of the list exited (an absent
 * task, a pid no workload has, counts as exited). The check resumes at the first task that was still
 * running: during one run the machine only goes forward, so n tasks cost O(n) reads over the whole
 * run plus one per check, where asking every task each round cost O(n) per round.
 *
 * @example
 * const until = untilAllExited([a, b]);
 * machine.run({ until });
 */
export function untilAllExited(tasks: readonly (ExitState | undefined)[]): () => boolean {
  let next = 0;
  return () => {
    while (next < tasks.length && (tasks[next]?.exited ?? true)) next++;
    return next === tasks.length;
  };
}
