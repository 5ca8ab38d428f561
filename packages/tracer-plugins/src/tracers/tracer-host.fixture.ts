import { bootTraceFs } from '../../test/support/tracefs-machine.js';
import { PluginError } from '../plugins/plugin-error.js';
import { TracerHost } from '../plugins/tracer-host.js';
import { BUILTIN_TRACER_PLUGINS } from './builtin-tracer-plugins.js';

/** A booted machine with a tracefs and a TracerHost holding the built-in tracers. */
export async function bootTracerHost(cpus = 1) {
  const booted = bootTraceFs(cpus);
  const host = new TracerHost(booted.fs);
  for (const p of BUILTIN_TRACER_PLUGINS) await host.install(p);
  return { ...booted, host };
}

/** What `host.start(name, args)` threw, unwrapped: the tracer's own error (a PluginError's cause). */
export function startCause(host: TracerHost, name: string, args: readonly string[]): unknown {
  try {
    host.start(name, args);
  } catch (e) {
    return e instanceof PluginError ? e.cause : e;
  }
  throw new Error(`${name} ${args.join(' ')} started`);
}
