/** `pid → comm`, as `saved_cmdlines` remembers it; undefined when unknown. */
export type CommLookup = (pid: number) => string | undefined;

/** Longest comm the kernel keeps (TASK_COMM_LEN 16, NUL included). */
const TASK_COMM_MAX = 15;

/**
 * The comm shown for a pid: `<idle>` for 0, `<XXX>` for a negative pid, `<...>` when unknown,
 * otherwise the name cut to 15 characters as the kernel stores it.
 *
 * @see kernel/trace/trace_sched_switch.c trace_find_cmdline()
 */
export function traceFindCmdline(pid: number, lookup: CommLookup | undefined): string {
  if (pid === 0) return '<idle>';
  if (pid < 0) return '<XXX>';
  const comm = lookup?.(pid);
  return comm === undefined ? '<...>' : comm.slice(0, TASK_COMM_MAX);
}
