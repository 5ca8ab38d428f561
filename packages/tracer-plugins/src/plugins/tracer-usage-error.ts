/**
 * What a tracer's `start` throws when its arguments (`ctx.args`) are wrong: a mistake of the user's,
 * not a bug of the tracer. The host reports it as any failed start (a `PluginError` whose `cause` it
 * is); the CLI prints it as a usage error, one `int3: <tracer>: <message>` line and exit status 2.
 * Its message says what was wrong and how the tracer is called.
 *
 * @example
 * if (ctx.args.length === 0) throw new TracerUsageError('no function given; usage: calls FUNCTION...');
 */
export class TracerUsageError extends Error {
  override readonly name = 'TracerUsageError';
}
