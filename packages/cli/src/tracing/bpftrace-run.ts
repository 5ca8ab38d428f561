import { BpftraceError, formatBpftraceError, PluginError, type TracerHost } from '@int3/tracer-plugins';
import { CliError } from '../cli-error.js';

/** A bpftrace program and how to print it. */
export interface BpftraceSpec {
  readonly source: string;
  /** The name errors give the source: `stdin` for `-e`, else the file. */
  readonly filename: string;
  readonly format: 'text' | 'json';
}

/** What the bpftrace tracer printed, stream by stream, and whether the program called `exit()`. */
export interface BpftraceStreams {
  readonly stdout: string;
  readonly stderr: string;
  readonly exited: boolean;
}

/**
 * Starts the bpftrace tracer of `host` with a program. A mistake in it (or an attach point that
 * matches nothing) is a failure (exit 1) printed as bpftrace prints it: `int3: stdin:1:12-18: ERROR:
 * …`, then the source line and the `~` underline.
 *
 * @see bpftrace src/main.cpp (errors exit 1)
 */
export function startBpftrace(host: TracerHost, spec: BpftraceSpec, command: string): void {
  try {
    host.start('bpftrace', ['-f', spec.format, '--streams', spec.source]);
  } catch (error) {
    const cause = error instanceof PluginError ? error.cause : error;
    if (cause instanceof BpftraceError) {
      const [first, ...rest] = formatBpftraceError(cause, spec.source, spec.filename).trimEnd().split('\n');
      throw new CliError('failure', first, command, rest.length > 0 ? rest.join('\n') : undefined);
    }
    if (error instanceof PluginError) throw new CliError('usage', error.message.replace(/^.*threw: /, ''), command);
    throw error;
  }
}

/** The bpftrace tracer's streams once the host stopped it (its `end` probes and maps printed). */
export function bpftraceStreams(host: TracerHost): BpftraceStreams {
  return JSON.parse(host.report('bpftrace').text) as BpftraceStreams;
}
