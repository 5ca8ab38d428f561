import type { Machine } from '@int3/kernel';
import type { Kprobes } from '@int3/kprobes';
import { BUILTIN_TRACER_PLUGINS, PluginError, type TraceFs, TracerHost } from '@int3/tracer-plugins';
import type { Command } from 'commander';
import { Container } from 'inversify';
import { CliError } from '../cli-error.js';
import { type CliEnvironment, environmentOf } from '../runtime/cli-environment.js';
import { type GlobalOptions, globalOptions } from '../runtime/global-options.js';
import { Terminal } from '../runtime/terminal.js';
import type { TracedSession } from '../tracing/traced-session.js';
import { CliTokens } from './cli-tokens.js';

/**
 * The composition root: the one place the CLI's object graph is built. It binds the process
 * environment, the global options, the terminal and Ctrl-C, and — built on first use from `boot` —
 * the command's traced session, its machine, kprobes and tracefs, and a tracer host with the built-in
 * tracers and every `--plugin` loaded. Commands `get` what they need; nothing else calls `new` on these services.
 *
 * @example
 * const c = createCliContainer(cmd, () => createTracedSession(image, 2));
 * const t = c.get<TracedSession>(CliTokens.TracedSession);
 * const host = await c.getAsync<TracerHost>(CliTokens.TracerHost);
 */
export function createCliContainer(command: Command, boot?: () => TracedSession): Container {
  const environment = environmentOf(command);
  const globals = globalOptions(command);
  const c = new Container();
  c.bind<CliEnvironment>(CliTokens.Environment).toConstantValue(environment);
  c.bind<GlobalOptions>(CliTokens.GlobalOptions).toConstantValue(globals);
  c.bind(CliTokens.Interrupt).toConstantValue(environment.interrupt);
  c.bind<Terminal>(CliTokens.Terminal).toConstantValue(
    new Terminal({
      stdoutIsTty: environment.stdoutIsTty,
      stderrIsTty: environment.stderrIsTty,
      color: globals.color,
      env: environment.env,
      quiet: globals.quiet,
      writeErr: environment.writeErr,
    }),
  );
  if (boot === undefined) return c;
  c.bind<TracedSession>(CliTokens.TracedSession)
    .toDynamicValue(() => boot())
    .inSingletonScope();
  const traced = (ctx: { get<T>(id: symbol): T }) => ctx.get<TracedSession>(CliTokens.TracedSession);
  c.bind<Machine>(CliTokens.Machine).toDynamicValue((ctx) => traced(ctx).session.machine);
  c.bind<Kprobes>(CliTokens.Kprobes).toDynamicValue((ctx) => traced(ctx).kprobes);
  c.bind<TraceFs>(CliTokens.TraceFs).toDynamicValue((ctx) => traced(ctx).fs);
  c.bind<TracerHost>(CliTokens.TracerHost)
    .toDynamicValue(async (ctx) => {
      const host = new TracerHost(ctx.get<TraceFs>(CliTokens.TraceFs));
      host.watchdogMs = globals.pluginTimeoutMs;
      for (const plugin of BUILTIN_TRACER_PLUGINS) await host.install(plugin);
      for (const specifier of globals.plugins) await loadPlugin(host, specifier, environment.cwd);
      return host;
    })
    .inSingletonScope();
  return c;
}

/** Loads one `--plugin`; a plugin that cannot be loaded is a failure naming it, without a stack trace. */
async function loadPlugin(host: TracerHost, specifier: string, cwd: string): Promise<void> {
  try {
    await host.load(specifier, cwd);
  } catch (error) {
    if (error instanceof PluginError)
      throw new CliError('failure', `cannot load --plugin ${specifier}: ${error.message}`);
    throw error;
  }
}
