/** The closed set of plugin failures. */
export const PluginErrorCode = Object.freeze({
  /** The package or path does not exist. */
  NOT_FOUND: 'PLUGIN_NOT_FOUND',
  /** Importing the module threw (syntax error, missing dependency, top-level throw). */
  IMPORT_FAILED: 'PLUGIN_IMPORT_FAILED',
  /** The module does not export a valid `manifest` and `module`, or binds what it does not provide. */
  INVALID: 'PLUGIN_INVALID',
  /** Loading the container module or building a tracer threw. */
  LOAD_FAILED: 'PLUGIN_LOAD_FAILED',
  /** A tracer name is already provided by another plugin. */
  CONFLICT: 'PLUGIN_CONFLICT',
  /** No loaded plugin provides the tracer asked for. */
  NO_TRACER: 'PLUGIN_NO_TRACER',
  /** The tracer's `start`, `stop` or `report` threw. */
  TRACER_FAILED: 'PLUGIN_TRACER_FAILED',
  /** One of its probe handlers threw while the machine ran; its probes were disabled. */
  HANDLER_FAILED: 'PLUGIN_HANDLER_FAILED',
  /** Its code threw outside the host's calls: from a timer, a promise or a subscription. */
  ASYNC_FAILED: 'PLUGIN_ASYNC_FAILED',
  /** It called `process.exit()`, which int3 refused. */
  EXITED: 'PLUGIN_EXITED',
  /** A call into it did not return within the watchdog's limit; the run was stopped there. */
  TIMED_OUT: 'PLUGIN_TIMED_OUT',
  /** It was built for a plugin API version this int3 does not provide. */
  API_MISMATCH: 'PLUGIN_API_MISMATCH',
});

/** One of {@link PluginErrorCode}'s values. */
export type PluginErrorCodeValue = (typeof PluginErrorCode)[keyof typeof PluginErrorCode];

/**
 * The one error class of plugin loading and running. Its message starts with the plugin it concerns
 * (`plugin 'x': …`) and says what to do; `cause` keeps the plugin's own exception.
 *
 * @see kernel/module/main.c load_module() — a bad module fails its load with an error, not a panic
 */
export class PluginError extends Error {
  override readonly name = 'PluginError';

  constructor(
    readonly code: PluginErrorCodeValue,
    /** The plugin (manifest name, else the specifier it was loaded by). */
    readonly plugin: string,
    message: string,
    options?: { cause?: unknown; tracer?: string | undefined },
  ) {
    super(`plugin '${plugin}': ${message}`, options);
    this.tracer = options?.tracer;
  }

  /** The tracer it concerns, when one tracer (not the whole plugin) failed. */
  readonly tracer: string | undefined;
}

/** The message of anything thrown, for wrapping it. */
export function describeThrown(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
