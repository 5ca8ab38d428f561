import { bootTraceFs } from '../../test/support/tracefs-machine.js';
import { TracerHost } from '../plugins/tracer-host.js';
import { BUILTIN_TRACER_PLUGINS } from './builtin-tracer-plugins.js';

/** A booted machine with a tracefs and a TracerHost holding the built-in tracers. */
export async function bootTracerHost(cpus = 1) {
  const booted = bootTraceFs(cpus);
  const host = new TracerHost(booted.fs);
  for (const p of BUILTIN_TRACER_PLUGINS) await host.install(p);
  return { ...booted, host };
}
