import { PluginError, type TracerHost } from '@int3/tracer-plugins';
import { CliError } from '../cli-error.js';

/** Starts every tracer the `--plugin`s provide (with no arguments); a tracer that refuses is a failure. */
export function startPluginTracers(host: TracerHost): void {
  guard(() => {
    for (const name of host.tracerNames) host.start(name);
  });
}

/**
 * Stops every running tracer and renders their reports, each under a `# <tracer> (<plugin>)` heading,
 * in load order; `''` when no plugin was loaded.
 */
export function pluginReports(host: TracerHost): string {
  return guard(() => {
    host.stop();
    let out = '';
    for (const name of host.tracerNames) out += `# ${name}\n${host.report(name).text.replace(/\n*$/, '\n')}`;
    return out;
  });
}

function guard<T>(body: () => T): T {
  try {
    return body();
  } catch (error) {
    if (error instanceof PluginError) throw new CliError('failure', error.message);
    throw error;
  }
}
