/**
 * The service identifiers plugins `@inject`. They are registry symbols (`Symbol.for`), so a plugin that
 * got its own copy of `@int3/tracer-plugins` (a dist build beside sources, a second install) still
 * names the same services.
 *
 * @example
 * constructor(@inject(TracerTokens.Clock) private readonly clock: TracerClock) {}
 */
export const TracerTokens = Object.freeze({
  /** The plugin's `TracerKprobes` (its registrations are guarded). */
  Kprobes: Symbol.for('@int3/tracer-plugins/Kprobes'),
  /** The trace buffer behind `trace` and `trace_pipe`. */
  TraceBuffer: Symbol.for('@int3/tracer-plugins/TraceBuffer'),
  /** A `TracerClock`. */
  Clock: Symbol.for('@int3/tracer-plugins/Clock'),
  /** The whole `TracerContext` (with empty `args`). */
  Context: Symbol.for('@int3/tracer-plugins/Context'),
});
