/**
 * The service identifiers of the CLI's container (see {@link createCliContainer}). The machine-side
 * services are built lazily from the one session a command boots or replays.
 */
export const CliTokens = Object.freeze({
  /** The process's {@link CliEnvironment}. */
  Environment: Symbol.for('@int3/cli/Environment'),
  /** The {@link GlobalOptions}. */
  GlobalOptions: Symbol.for('@int3/cli/GlobalOptions'),
  /** The {@link Terminal} (colours, progress, notes). */
  Terminal: Symbol.for('@int3/cli/Terminal'),
  /** The {@link Interrupt} Ctrl-C sets. */
  Interrupt: Symbol.for('@int3/cli/Interrupt'),
  /** The {@link TracedSession}: session, kprobes and tracefs of the command's machine. */
  TracedSession: Symbol.for('@int3/cli/TracedSession'),
  /** The `Machine` of that session. */
  Machine: Symbol.for('@int3/cli/Machine'),
  /** Its `Kprobes`. */
  Kprobes: Symbol.for('@int3/cli/Kprobes'),
  /** Its `TraceFs`. */
  TraceFs: Symbol.for('@int3/cli/TraceFs'),
  /** A `TracerHost` on that tracefs with every `--plugin` loaded (resolve with `getAsync`). */
  TracerHost: Symbol.for('@int3/cli/TracerHost'),
});
